#ifndef ORIENTATIOND_CUDEV_SHIM_H
#define ORIENTATIOND_CUDEV_SHIM_H
#include <libudev.h>
#endif
