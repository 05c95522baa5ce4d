#ifndef ORIENTATIOND_CDBUS_SHIM_H
#define ORIENTATIOND_CDBUS_SHIM_H
#include <dbus/dbus.h>
#endif
