/* GTK 4 for Swift: the headers, and the one macro the demo needs as a function. */
#ifndef ORIENTATION_DEMO_GTK_SHIM_H
#define ORIENTATION_DEMO_GTK_SHIM_H
#include <gtk/gtk.h>
#include <glib-unix.h>

/* g_signal_connect_data with a destroy notify, so that a handler's context is freed
 * with the handler (GObject's macros are not visible to Swift). */
static inline gulong demo_signal_connect(gpointer instance, const char *signal, GCallback handler,
                                         gpointer data, GClosureNotify destroy) {
    return g_signal_connect_data(instance, signal, handler, data, destroy, (GConnectFlags)0);
}
#endif
