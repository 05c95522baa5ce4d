import CGtk4

/// Thin, typed Swift over the GTK 4 calls the demo uses.
///
/// Ownership follows GTK's: a new widget's floating reference is taken by the container
/// it is put in, and the window is destroyed by GTK when it closes; the demo holds no
/// reference of its own to any of them. Every Swift closure handed to GTK travels in a
/// retained box that GTK releases through the destroy notify of the handler or source,
/// so nothing is leaked when the widget goes.
struct Widget {
    let raw: UnsafeMutableRawPointer

    init(_ pointer: UnsafeMutableRawPointer) { raw = pointer }
    init(_ pointer: UnsafeMutablePointer<GtkWidget>) { raw = UnsafeMutableRawPointer(pointer) }

    var pointer: UnsafeMutablePointer<GtkWidget> { raw.assumingMemoryBound(to: GtkWidget.self) }
    var opaque: OpaquePointer { OpaquePointer(raw) }
    func typed<T>(_: T.Type) -> UnsafeMutablePointer<T> { raw.assumingMemoryBound(to: T.self) }

    func setMargins(_ margin: Int32) {
        gtk_widget_set_margin_top(pointer, margin)
        gtk_widget_set_margin_bottom(pointer, margin)
        gtk_widget_set_margin_start(pointer, margin)
        gtk_widget_set_margin_end(pointer, margin)
    }

    func expand() {
        gtk_widget_set_hexpand(pointer, 1)
        gtk_widget_set_vexpand(pointer, 1)
    }

    func queueDraw() { gtk_widget_queue_draw(pointer) }
    func setSensitive(_ on: Bool) { gtk_widget_set_sensitive(pointer, on ? 1 : 0) }
    var width: Int32 { gtk_widget_get_width(pointer) }
    var height: Int32 { gtk_widget_get_height(pointer) }

    /// A handler for a signal with no arguments besides the instance.
    func on(_ signal: String, _ action: @escaping () -> Void) {
        let box = Unmanaged.passRetained(Box(action)).toOpaque()
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
            guard let data else { return }
            Unmanaged<Box<() -> Void>>.fromOpaque(data).takeUnretainedValue().value()
        }
        _ = demo_signal_connect(raw, signal, unsafeBitCast(thunk, to: GCallback.self), box, releaseBox)
    }

    /// A handler for "notify::PROPERTY" (its handler takes the instance, the GParamSpec
    /// and the data).
    func onNotify(_ property: String, _ action: @escaping () -> Void) {
        let box = Unmanaged.passRetained(Box(action)).toOpaque()
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, _, data in
            guard let data else { return }
            Unmanaged<Box<() -> Void>>.fromOpaque(data).takeUnretainedValue().value()
        }
        _ = demo_signal_connect(raw, "notify::" + property, unsafeBitCast(thunk, to: GCallback.self), box, releaseBox)
    }

    /// Calls `body` once per frame while it returns true (gtk_widget_add_tick_callback).
    func onEveryFrame(_ body: @escaping () -> Bool) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        _ = gtk_widget_add_tick_callback(pointer, { _, _, data in
            guard let data else { return 0 }
            return Unmanaged<Box<() -> Bool>>.fromOpaque(data).takeUnretainedValue().value() ? 1 : 0
        }, box, { data in if let data { Unmanaged<AnyObject>.fromOpaque(data).release() } })
    }
}

/// A Swift value in a class, to travel through a C `gpointer`.
final class Box<T> {
    let value: T
    init(_ value: T) { self.value = value }
}

/// The destroy notify of every handler: releases its box.
private let releaseBox: GClosureNotify = { data, _ in
    if let data { Unmanaged<AnyObject>.fromOpaque(data).release() }
}

enum Gtk {
    static func label(_ text: String, xalign: Float = 0) -> Widget {
        let label = Widget(gtk_label_new(text))
        gtk_label_set_xalign(label.opaque, xalign)
        return label
    }

    static func setText(_ label: Widget, _ text: String) { gtk_label_set_text(label.opaque, text) }

    /// A monospace label that wraps, for the event log.
    static func logLabel() -> Widget {
        let label = Gtk.label("")
        gtk_label_set_wrap(label.opaque, 1)
        gtk_widget_add_css_class(label.pointer, "monospace")
        gtk_label_set_yalign(label.opaque, 0)
        return label
    }

    static func button(_ text: String, _ action: @escaping () -> Void) -> Widget {
        let button = Widget(gtk_button_new_with_label(text))
        button.on("clicked", action)
        return button
    }

    static func toggle(_ text: String) -> Widget { Widget(gtk_toggle_button_new_with_label(text)) }
    static func isActive(_ toggle: Widget) -> Bool { gtk_toggle_button_get_active(toggle.typed(GtkToggleButton.self)) != 0 }
    static func setActive(_ toggle: Widget, _ on: Bool) { gtk_toggle_button_set_active(toggle.typed(GtkToggleButton.self), on ? 1 : 0) }

    static func box(vertical: Bool, spacing: Int32 = 8, _ children: [Widget] = []) -> Widget {
        let box = Widget(gtk_box_new(vertical ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL, spacing))
        for child in children { append(child, to: box) }
        return box
    }

    static func append(_ child: Widget, to box: Widget) { gtk_box_append(box.typed(GtkBox.self), child.pointer) }

    /// A drawing area whose content `draw(cairo, width, height)` paints.
    static func drawingArea(width: Int32, height: Int32, _ draw: @escaping (OpaquePointer, Int32, Int32) -> Void) -> Widget {
        let area = Widget(gtk_drawing_area_new())
        gtk_drawing_area_set_content_width(area.typed(GtkDrawingArea.self), width)
        gtk_drawing_area_set_content_height(area.typed(GtkDrawingArea.self), height)
        let box = Unmanaged.passRetained(Box(draw)).toOpaque()
        gtk_drawing_area_set_draw_func(area.typed(GtkDrawingArea.self), { _, cairo, width, height, data in
            guard let data, let cairo else { return }
            Unmanaged<Box<(OpaquePointer, Int32, Int32) -> Void>>.fromOpaque(data).takeUnretainedValue().value(cairo, width, height)
        }, box, { data in if let data { Unmanaged<AnyObject>.fromOpaque(data).release() } })
        return area
    }

    static func stack() -> Widget {
        let stack = Widget(gtk_stack_new())
        gtk_stack_set_transition_type(stack.opaque, GTK_STACK_TRANSITION_TYPE_NONE)
        return stack
    }

    static func addPage(_ child: Widget, name: String, title: String, to stack: Widget) {
        _ = gtk_stack_add_titled(stack.opaque, child.pointer, name, title)
    }

    static func visiblePage(of stack: Widget) -> String? {
        gtk_stack_get_visible_child_name(stack.opaque).map { String(cString: $0) }
    }

    static func showPage(_ name: String, of stack: Widget) { gtk_stack_set_visible_child_name(stack.opaque, name) }

    static func stackSwitcher(for stack: Widget) -> Widget {
        let switcher = Widget(gtk_stack_switcher_new())
        gtk_stack_switcher_set_stack(switcher.opaque, stack.opaque)
        return switcher
    }

    static func window(title: String, child: Widget) -> Widget {
        let window = Widget(gtk_window_new())
        gtk_window_set_title(window.typed(GtkWindow.self), title)
        gtk_window_set_child(window.typed(GtkWindow.self), child.pointer)
        gtk_window_set_default_size(window.typed(GtkWindow.self), 760, 560)
        return window
    }

    static func present(_ window: Widget) { gtk_window_present(window.typed(GtkWindow.self)) }
    static func destroy(_ window: Widget) { gtk_window_destroy(window.typed(GtkWindow.self)) }

    /// Renders the window as it is now into a PNG file (GTK's own renderer, so it works
    /// on any display, Xvfb included). False when there is nothing to render yet.
    static func savePNG(of window: Widget, to path: String) -> Bool {
        let width = window.width, height = window.height
        guard width > 0, height > 0, let native = gtk_widget_get_native(window.pointer),
              let renderer = gtk_native_get_renderer(native) else { return false }
        guard let paintable = gtk_widget_paintable_new(window.pointer) else { return false }
        defer { g_object_unref(UnsafeMutableRawPointer(paintable)) }
        guard let snapshot = gtk_snapshot_new() else { return false }
        gdk_paintable_snapshot(paintable, snapshot, Double(width), Double(height))
        guard let node = gtk_snapshot_free_to_node(snapshot) else { return false }
        defer { gsk_render_node_unref(node) }
        var viewport = graphene_rect_t(origin: graphene_point_t(x: 0, y: 0), size: graphene_size_t(width: Float(width), height: Float(height)))
        guard let texture = gsk_renderer_render_texture(renderer, node, &viewport) else { return false }
        defer { g_object_unref(UnsafeMutableRawPointer(texture)) }
        return gdk_texture_save_to_png(texture, path) != 0
    }
}

/// GLib's main loop, with the two kinds of source the demo needs.
final class MainLoop {
    private let loop: OpaquePointer

    init() { loop = g_main_loop_new(nil, 0) }
    deinit { g_main_loop_unref(loop) }

    func run() { g_main_loop_run(loop) }
    func quit() { g_main_loop_quit(loop) }

    /// Calls `body` whenever `fd` is readable (g_unix_fd_add), until the loop goes.
    func watch(fd: Int32, _ body: @escaping () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        _ = g_unix_fd_add_full(G_PRIORITY_DEFAULT, fd, G_IO_IN, { _, _, data in
            guard let data else { return 0 }
            Unmanaged<Box<() -> Void>>.fromOpaque(data).takeUnretainedValue().value()
            return 1
        }, box, { data in if let data { Unmanaged<AnyObject>.fromOpaque(data).release() } })
    }

    /// Calls `body` on SIGINT and on SIGTERM (g_unix_signal_add).
    func onTerminationSignal(_ body: @escaping () -> Void) {
        for signal in [SIGINT, SIGTERM] {
            let box = Unmanaged.passRetained(Box(body)).toOpaque()
            _ = g_unix_signal_add_full(G_PRIORITY_DEFAULT, signal, { data in
                guard let data else { return 0 }
                Unmanaged<Box<() -> Void>>.fromOpaque(data).takeUnretainedValue().value()
                return 1
            }, box, { data in if let data { Unmanaged<AnyObject>.fromOpaque(data).release() } })
        }
    }
}

/// Monotonic milliseconds (GLib's clock, the one frame clocks use).
func nowMs() -> Int64 { Int64(g_get_monotonic_time()) / 1000 }
