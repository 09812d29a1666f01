/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_PUSH_H_
#define _REFNIC_EMU_PUSH_H_

/*
 * The write-combining push window (refnic_emu_push.c): the lines a TX
 * queue holds (struct refnic_emu_txq embeds them), and what the trap, the
 * queue work and the admin processor call (the queue work takes lines from
 * the FIFO with refnic_emu_push_priv.h).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_spinlock.h>

#include "refnic_hw.h"

struct refnic_emu;
struct refnic_emu_txq;
struct refnic_frame;

/* A push line as it reached the device (the write's payload), until the
 * queue's work sends it. */
#define REFNIC_EMU_PUSH_FIFO		4
struct refnic_emu_push {
	uint16_t start;			/* ring index of its first descriptor */
	uint16_t len;			/* bytes stored */
	uint8_t line[REFNIC_PUSH_LINE_SIZE] __rte_aligned(8);
};

/* The last line stored to a TX queue not created: the push self-test. */
struct refnic_emu_push_probe {
	rte_spinlock_t lock;
	uint16_t qid;
	uint16_t len;
	uint32_t xfers;			/* transactions it arrived in */
	bool whole;			/* every burst in one piece */
	uint8_t line[REFNIC_PUSH_LINE_SIZE] __rte_aligned(8);
};

/* The trap of a line store: val bytes stored at off, then a fence. */
void refnic_emu_push_write(struct refnic_emu *emu, uint32_t off, uint32_t val);
/* Gather a pushed packet into f; *next: the descriptor after it. */
void refnic_emu_push_gather(struct refnic_emu *emu, const struct refnic_emu_push *p,
			    struct refnic_frame *f, uint16_t *next, uint16_t mask,
			    bool *malformed);
uint16_t refnic_emu_admin_push_check(struct refnic_emu *emu, uint32_t qid, uint32_t *result);

#endif /* _REFNIC_EMU_PUSH_H_ */
