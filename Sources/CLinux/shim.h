#ifndef ORIENTATIOND_CLINUX_SHIM_H
#define ORIENTATIOND_CLINUX_SHIM_H
/* Linux interfaces that Glibc's Swift module does not expose. */
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <linux/input.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/auxv.h>
#include <elf.h>
#include <sys/pidfd.h>

/* pipe2 needs _GNU_SOURCE, which the Glibc module is not built with. */
extern int pipe2(int pipefd[2], int flags);
#include <spawn.h>
/* So does posix_spawn_file_actions_addchdir_np (glibc 2.29). */
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);

/* EVIOCGABS is a function-like macro; Swift cannot import it. */
static inline unsigned long clinux_eviocgabs(unsigned int axis) { return EVIOCGABS(axis); }
static inline unsigned long clinux_eviocgname(unsigned int len) { return EVIOCGNAME(len); }
static inline unsigned long clinux_eviocgbit(unsigned int ev, unsigned int len) { return EVIOCGBIT(ev, len); }
static inline unsigned long clinux_eviocgprop(unsigned int len) { return EVIOCGPROP(len); }
static inline unsigned long clinux_eviocgsw(unsigned int len) { return EVIOCGSW(len); }
static inline unsigned long clinux_eviocsclockid(void) { return EVIOCSCLOCKID; }
#endif
