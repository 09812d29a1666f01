/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_ENGINE_H_
#define _REFNIC_EMU_ENGINE_H_

/* The engine threads (refnic_emu_engine.c), started with the first device
 * that needs them, stopped with the last device. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/queue.h>

struct refnic_emu;

/*
 * The engine thread running this code: 0 for the first engine and for
 * control threads, which hold every engine's lock.
 */
extern __thread unsigned int refnic_emu_engine_id
	__attribute__((tls_model("initial-exec")));

/* This thread is an engine: its shard is its own, engine 0's (0) included. */
extern __thread bool refnic_emu_on_engine __attribute__((tls_model("initial-exec")));

int refnic_emu_engine_get(unsigned int nb_engines);
void refnic_emu_engine_put(void);
extern TAILQ_HEAD(refnic_emu_list, refnic_emu) refnic_emu_devices;
/* Control threads: every engine's lock. */
void refnic_emu_lock(void);
void refnic_emu_unlock(void);
/* Readers (telemetry): the device list and what control threads set stay
 * put, the data path runs on. */
void refnic_emu_list_lock(void);
void refnic_emu_list_unlock(void);
/* Engine threads running, and whether they share CPUs with lcores; under
 * the list lock. */
unsigned int refnic_emu_engine_running(bool *share_cpu);
/* Engine k's thread name, as ps and top show it. */
void refnic_emu_engine_name(unsigned int k, char *buf, size_t len);
/* The first engine, changing what the others read: their locks too, and
 * the device's queues (trap threads run their work too). */
void refnic_emu_engine_lock_others(struct refnic_emu *emu);
void refnic_emu_engine_unlock_others(struct refnic_emu *emu);
/* A trap running the first engine's control work: true once it holds that
 * engine's lock (then give it back), false on an engine thread. */
bool refnic_emu_engine_borrow_first(void);
void refnic_emu_engine_return_first(void);
/* A new device's link: the engines' kick fds; then kick them all. */
void refnic_emu_engine_link_init(struct refnic_emu *emu);
void refnic_emu_engine_kick_all(void);

#endif /* _REFNIC_EMU_ENGINE_H_ */
