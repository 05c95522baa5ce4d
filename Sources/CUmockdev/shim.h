#ifndef ORIENTATIOND_CUMOCKDEV_SHIM_H
#define ORIENTATIOND_CUMOCKDEV_SHIM_H
/* umockdev's testbed API, for the integration tests only. GObject calls are wrapped
   so that Swift sees plain functions with C strings and no GError plumbing. */
#include <umockdev.h>
#include <glib-object.h>
#include <string.h>

static inline void *cumockdev_new(void) { return umockdev_testbed_new(); }
static inline void cumockdev_free(void *tb) { g_object_unref(tb); }
static inline const char *cumockdev_root_dir(void *tb) { return umockdev_testbed_get_root_dir((UMockdevTestbed *)tb); }
static inline const char *cumockdev_sys_dir(void *tb) { return umockdev_testbed_get_sys_dir((UMockdevTestbed *)tb); }

/* Returns NULL on success, else a malloc'd message the caller frees. */
static inline char *cumockdev_add_from_string(void *tb, const char *text) {
    GError *error = NULL;
    if (umockdev_testbed_add_from_string((UMockdevTestbed *)tb, text, &error)) return NULL;
    char *message = strdup(error && error->message ? error->message : "unknown error");
    if (error) g_error_free(error);
    return message;
}
static inline char *cumockdev_load_ioctl(void *tb, const char *dev, const char *path) {
    GError *error = NULL;
    if (umockdev_testbed_load_ioctl((UMockdevTestbed *)tb, dev, path, &error)) return NULL;
    char *message = strdup(error && error->message ? error->message : "unknown error");
    if (error) g_error_free(error);
    return message;
}
static inline void cumockdev_set_attribute(void *tb, const char *dev, const char *name, const char *value) {
    umockdev_testbed_set_attribute((UMockdevTestbed *)tb, dev, name, value);
}
static inline void cumockdev_set_property(void *tb, const char *dev, const char *name, const char *value) {
    umockdev_testbed_set_property((UMockdevTestbed *)tb, dev, name, value);
}
static inline void cumockdev_uevent(void *tb, const char *dev, const char *action) {
    umockdev_testbed_uevent((UMockdevTestbed *)tb, dev, action);
}
static inline void cumockdev_remove_device(void *tb, const char *dev) {
    umockdev_testbed_remove_device((UMockdevTestbed *)tb, dev);
}
static inline int cumockdev_dev_fd(void *tb, const char *devnode) {
    return umockdev_testbed_get_dev_fd((UMockdevTestbed *)tb, devnode);
}
#endif
