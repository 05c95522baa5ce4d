#!/usr/bin/env python3
"""A camera app's orientation, with Gio (no dbus-python): the interface supports only
"normal", so it never turns; the icons turn by ContentRotation, and every
OrientationWillChange is printed before the change it announces.

    camera.py [BUS_ADDRESS]      (default: the system bus)
"""
import sys

from gi.repository import Gio, GLib

NAME = "org.orientationd.Orientation1"
MANAGER = "/org/orientationd/Orientation1"
CLIENT_INTERFACE = "org.orientationd.Orientation1.Client"


def say(line):
    print(line, flush=True)


def main():
    if len(sys.argv) > 1:
        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        bus = Gio.DBusConnection.new_for_address_sync(sys.argv[1], flags, None, None)
    else:
        bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
    manager = Gio.DBusProxy.new_sync(bus, Gio.DBusProxyFlags.NONE, None, NAME, MANAGER, NAME, None)
    options = GLib.Variant("(a{sv})", ({"SupportedOrientations": GLib.Variant("as", ["normal"])},))
    (path,) = manager.call_sync("CreateClient", options, Gio.DBusCallFlags.NONE, -1, None).unpack()
    client = Gio.DBusProxy.new_sync(bus, Gio.DBusProxyFlags.NONE, None, NAME, path, CLIENT_INTERFACE, None)

    def on_signal(proxy, sender, signal, parameters):
        if signal == "OrientationWillChange":
            old, new, rotation = parameters.unpack()
            say("will-change %s -> %s content-rotation=%d" % (old, new, rotation))

    def on_properties(proxy, changed, invalidated):
        changed = changed.unpack()
        if "ContentRotation" in changed:
            say("content-rotation %d" % changed["ContentRotation"])

    client.connect("g-signal", on_signal)
    client.connect("g-properties-changed", on_properties)
    client.call_sync("Start", None, Gio.DBusCallFlags.NONE, -1, None)
    say("state interface=%s content-rotation=%d" % (client.get_cached_property("InterfaceOrientation").unpack(),
                                                    client.get_cached_property("ContentRotation").unpack()))
    loop = GLib.MainLoop()
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 15, loop.quit)  # SIGTERM
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 2, loop.quit)   # SIGINT
    loop.run()
    client.call_sync("Close", None, Gio.DBusCallFlags.NONE, -1, None)


if __name__ == "__main__":
    try:
        main()
    except GLib.Error as error:
        sys.exit("camera.py: " + error.message)
