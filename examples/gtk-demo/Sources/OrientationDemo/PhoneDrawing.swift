import CGtk4
import Glibc

/// What one frame of a page's phone shows, in degrees counter-clockwise (the API's
/// angles): the device as the viewer sees it, the interface inside it, and the
/// free-standing content inside the interface.
struct PhonePose {
    var device: Double
    var interface: Double
    var content: Double
}

/// Draws the model on a desktop whose screen does not turn: a phone outline turned by
/// DeviceOrientation; inside it the interface, laid out for InterfaceOrientation (turned
/// back by its angle, so an interface that matches the device is upright for the
/// viewer); inside that, free-standing content turned by ContentRotation.
///
/// Cairo's y axis points down, so a positive cairo angle is clockwise on screen: turning
/// the device counter-clockwise in API terms ("left-up" = 90: the device's left edge up)
/// is a clockwise turn of the drawing.
enum PhoneDrawing {
    static let phoneWidth = 180.0, phoneHeight = 320.0

    static func draw(_ cr: OpaquePointer, width: Int32, height: Int32, page: Page, pose: PhonePose, caption: String) {
        // Background.
        cairo_set_source_rgb(cr, 0.96, 0.96, 0.97)
        cairo_paint(cr)
        cairo_translate(cr, Double(width) / 2, Double(height) / 2)
        let scale = min(Double(width), Double(height)) / (phoneHeight + 60)
        cairo_scale(cr, scale, scale)

        // The device, as the viewer sees it.
        cairo_save(cr)
        cairo_rotate(cr, radians(pose.device))
        roundedRect(cr, -phoneWidth / 2 - 10, -phoneHeight / 2 - 24, phoneWidth + 20, phoneHeight + 48, 22)
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.18)
        cairo_fill(cr)
        // Its speaker slot marks the device's top edge.
        roundedRect(cr, -22, -phoneHeight / 2 - 15, 44, 6, 3)
        cairo_set_source_rgb(cr, 0.4, 0.4, 0.45)
        cairo_fill(cr)

        // The interface, laid out for its orientation: turned back by its angle relative
        // to the device; its bounds are the screen's, portrait or landscape.
        cairo_save(cr)
        cairo_rotate(cr, -radians(pose.interface))
        let landscape = Int((pose.interface / 90).rounded()) % 2 != 0
        let w = landscape ? phoneHeight : phoneWidth, h = landscape ? phoneWidth : phoneHeight
        cairo_rectangle(cr, -w / 2, -h / 2, w, h)
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_fill_preserve(cr)
        cairo_clip(cr)
        drawInterface(cr, page: page, width: w, height: h, content: pose.content, caption: caption)
        cairo_restore(cr)
        cairo_restore(cr)
    }

    /// The page's interface in its own frame (origin at its centre, up is up).
    private static func drawInterface(_ cr: OpaquePointer, page: Page, width w: Double, height h: Double, content: Double, caption: String) {
        // A title bar: where "up" is for the interface.
        cairo_rectangle(cr, -w / 2, -h / 2, w, 28)
        cairo_set_source_rgb(cr, 0.2, 0.45, 0.85)
        cairo_fill(cr)
        text(cr, page.title, x: 0, y: -h / 2 + 19, size: 14, rgb: (1, 1, 1))
        switch page {
        case .camera:
            // The capture area turns with the content rotation, as do the icons; the
            // shutter stays where the (portrait-only) interface put it.
            cairo_save(cr)
            cairo_translate(cr, 0, -10)
            cairo_rotate(cr, -radians(content))
            roundedRect(cr, -60, -45, 120, 90, 6)
            cairo_set_source_rgb(cr, 0.55, 0.75, 0.95)
            cairo_fill(cr)
            cairo_arc(cr, 30, -20, 12, 0, 2 * .pi)
            cairo_set_source_rgb(cr, 1, 0.85, 0.2)
            cairo_fill(cr)
            cairo_move_to(cr, -60, 45)
            cairo_line_to(cr, -20, 0)
            cairo_line_to(cr, 10, 30)
            cairo_line_to(cr, 35, 10)
            cairo_line_to(cr, 60, 45)
            cairo_close_path(cr)
            cairo_set_source_rgb(cr, 0.25, 0.6, 0.3)
            cairo_fill(cr)
            text(cr, "capture", x: 0, y: 62, size: 12, rgb: (0.2, 0.2, 0.2))
            cairo_restore(cr)
            for (index, icon) in ["F", "HDR", "⟲"].enumerated() {
                let x = -w / 2 + 30 + Double(index) * 40
                cairo_save(cr)
                cairo_translate(cr, x, -h / 2 + 50)
                cairo_arc(cr, 0, 0, 15, 0, 2 * .pi)
                cairo_set_source_rgb(cr, 0.9, 0.9, 0.92)
                cairo_fill(cr)
                cairo_rotate(cr, -radians(content))
                text(cr, icon, x: 0, y: 0, size: 12, rgb: (0.1, 0.1, 0.1), arrow: true)
                cairo_restore(cr)
            }
            cairo_arc(cr, 0, h / 2 - 40, 22, 0, 2 * .pi)
            cairo_set_source_rgb(cr, 0.85, 0.15, 0.15)
            cairo_fill(cr)
            text(cr, "shutter", x: 0, y: h / 2 - 8, size: 10, rgb: (0.3, 0.3, 0.3))
        case .relay, .navigation:
            text(cr, caption, x: 0, y: 0, size: 13, rgb: (0.1, 0.1, 0.1))
            arrowUp(cr, y: 40)
        case .matching:
            // The image turns only into the orientations it allows (content = its angle).
            cairo_save(cr)
            cairo_rotate(cr, -radians(content))
            roundedRect(cr, -55, -55, 110, 110, 8)
            cairo_set_source_rgb(cr, 0.95, 0.6, 0.3)
            cairo_fill(cr)
            arrowUp(cr, y: 0)
            text(cr, "image", x: 0, y: 45, size: 12, rgb: (0.1, 0.1, 0.1))
            cairo_restore(cr)
            text(cr, caption, x: 0, y: h / 2 - 20, size: 11, rgb: (0.3, 0.3, 0.3))
        }
    }

    private static func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }

    private static func roundedRect(_ cr: OpaquePointer, _ x: Double, _ y: Double, _ w: Double, _ h: Double, _ r: Double) {
        cairo_new_sub_path(cr)
        cairo_arc(cr, x + w - r, y + r, r, -.pi / 2, 0)
        cairo_arc(cr, x + w - r, y + h - r, r, 0, .pi / 2)
        cairo_arc(cr, x + r, y + h - r, r, .pi / 2, .pi)
        cairo_arc(cr, x + r, y + r, r, .pi, 1.5 * .pi)
        cairo_close_path(cr)
    }

    /// An upward arrow: which way "up" is for the frame it is drawn in.
    private static func arrowUp(_ cr: OpaquePointer, y: Double) {
        cairo_move_to(cr, 0, y - 30)
        cairo_line_to(cr, 18, y - 8)
        cairo_line_to(cr, 7, y - 8)
        cairo_line_to(cr, 7, y + 25)
        cairo_line_to(cr, -7, y + 25)
        cairo_line_to(cr, -7, y - 8)
        cairo_line_to(cr, -18, y - 8)
        cairo_close_path(cr)
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.25)
        cairo_fill(cr)
    }

    /// Text centred on (x, y); with `arrow`, a small tick above it shows its up.
    private static func text(_ cr: OpaquePointer, _ string: String, x: Double, y: Double, size: Double,
                             rgb: (Double, Double, Double), arrow: Bool = false) {
        cairo_select_font_face(cr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD)
        cairo_set_font_size(cr, size)
        var extents = cairo_text_extents_t()
        cairo_text_extents(cr, string, &extents)
        cairo_set_source_rgb(cr, rgb.0, rgb.1, rgb.2)
        cairo_move_to(cr, x - extents.width / 2 - extents.x_bearing, y - extents.height / 2 - extents.y_bearing)
        cairo_show_text(cr, string)
        if arrow {
            cairo_move_to(cr, x - 4, y - 8)
            cairo_line_to(cr, x, y - 12)
            cairo_line_to(cr, x + 4, y - 8)
            cairo_set_line_width(cr, 1.5)
            cairo_stroke(cr)
        }
    }
}
