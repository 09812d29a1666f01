/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_REMOTE_H_
#define _REFNIC_EMU_REMOTE_H_

/* Other processes (refnic_emu_remote.c): the BAR as a memzone, and stores
 * other processes made into it, replayed by engine 0. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_spinlock.h>

struct refnic_emu;

/* What secondary processes did to a device. */
struct refnic_emu_secondary {
	bool attached;			/* a secondary process stores: drain them */
	uint64_t stores;		/* a secondary's stores engine 0 replayed */
	/* Secondaries' doorbells run inline, one thread at a time (their
	 * shard is REFNIC_EMU_REMOTE_SHARD), and how many did. */
	rte_spinlock_t lock;
	uint64_t inlined;
};

int refnic_emu_bar_alloc(struct refnic_emu *emu);
void refnic_emu_bar_free(struct refnic_emu *emu);
void refnic_emu_remote_listen(void);
/* Where the clock lies from the BAR's start, in every process's memzone
 * (an shm cable's far end delivers with the receiving port's clock). */
size_t refnic_emu_bar_clock_offset(void);
unsigned int refnic_emu_remote_drain(struct refnic_emu *emu);
void refnic_emu_remote_dozing(struct refnic_emu *emu, bool dozing);
bool refnic_emu_remote_pending(const struct refnic_emu *emu);
void refnic_emu_remote_counts(const struct refnic_emu *emu, uint64_t *stores,
			      uint64_t *kicks);
/* In a secondary process, whose device work runs on the primary's device
 * state but whose fds are its own: engine 0 raises vector v; engine 0 is
 * kicked. */
void refnic_emu_remote_raise(struct refnic_emu *emu, uint16_t v);
void refnic_emu_remote_kick(void);

#endif /* _REFNIC_EMU_REMOTE_H_ */
