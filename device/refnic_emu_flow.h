/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_FLOW_H_
#define _REFNIC_EMU_FLOW_H_

/* The device's flow table, as the device holds it and an shm cable's file
 * publishes it to the far end, whose threads deliver into this port. */

#include <stdbool.h>
#include <stdint.h>

#include "refnic_hw.h"

/*
 * The flow table (refnic_emu_flow.c): slots as FLOW_ADD filled them (spec
 * already masked). Rules of one mask form a subtable, whose rules a frame
 * finds by hashing its key under that mask (tuple space search, as software
 * classifiers do what a TCAM does in parallel): a lookup costs one hash
 * probe per distinct mask, not one compare per rule. Rules beyond
 * REFNIC_EMU_FLOW_MASKS distinct masks are walked in rank order instead.
 * RX threads read it without a lock while the admin processor changes it:
 * every index and queue id in it is valid or bounded where it is used, so
 * a frame that races a change sees a rule or not, never a wrong queue.
 */
#define REFNIC_EMU_FLOWS		1024
#define REFNIC_EMU_FLOW_PRIORITIES	16
#define REFNIC_EMU_FLOW_MASKS		32	/* subtables */
#define REFNIC_EMU_FLOW_BUCKETS		2048	/* power of two */
#define REFNIC_EMU_FLOW_NONE		0xffffu	/* no slot */

struct refnic_emu_flow_entry {
	uint64_t spec[8];		/* struct refnic_flow_key, & mask */
	uint64_t mask[8];
	uint64_t rank;			/* priority << 32 | adds before: lower first */
	uint16_t priority;
	uint16_t actions;		/* REFNIC_FLOW_ACT_* */
	uint16_t queue;
	uint16_t next;			/* next slot in its bucket, or _NONE */
	uint8_t used;			/* 0 or 1: a byte, as a peer's file may hold any */
	uint8_t sub;			/* its subtable; REFNIC_EMU_FLOW_MASKS: walked */
	uint32_t mark;
	uint32_t rss_hash_types;
	uint8_t rss_key[REFNIC_RSS_KEY_SIZE];
	uint8_t reta[REFNIC_FLOW_RETA_SIZE];
	uint64_t hits;			/* COUNT; atomic: any RX thread adds */
	uint64_t bytes;
};

struct refnic_emu_flow_sub {
	uint64_t mask[8];
	uint32_t rules;			/* slots of this mask; 0: free */
	uint32_t rsvd;
};

struct refnic_emu_flows {
	uint32_t nb;			/* rules in the table */
	uint32_t gen;			/* changes: an shm cable publishes it again */
	uint32_t adds;			/* FLOW_ADDs since the reset: ranks */
	uint32_t nb_sub;		/* subtables ever used since the reset */
	uint32_t nb_walked;		/* rules in walked[] */
	uint16_t walked[REFNIC_EMU_FLOWS];	/* rules without a subtable, by rank */
	uint16_t bucket[REFNIC_EMU_FLOW_BUCKETS];	/* first slot, or _NONE */
	struct refnic_emu_flow_sub sub[REFNIC_EMU_FLOW_MASKS];
	struct refnic_emu_flow_entry e[REFNIC_EMU_FLOWS];
};

struct refnic_emu;
struct refnic_pkt_hdrs;

/* The table's use (refnic_emu_flow.c, REFNIC_CAP_FLOW). */
/* What the table decided for a frame. */
enum refnic_emu_flow_fate {
	REFNIC_EMU_FLOW_DEFAULT,	/* the port's RSS decides */
	REFNIC_EMU_FLOW_QUEUE,		/* to queue (hash with hashed) */
	REFNIC_EMU_FLOW_DROP,
};
struct refnic_emu_flow_verdict {
	uint16_t queue;
	bool hashed;
	bool marked;
	uint32_t hash;
	uint32_t mark;
};
enum refnic_emu_flow_fate refnic_emu_flow_lookup(struct refnic_emu *emu, const uint8_t *p,
						 const struct refnic_pkt_hdrs *h,
						 uint32_t frame_len,
						 struct refnic_emu_flow_verdict *v);
uint16_t refnic_emu_admin_flow(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd);
void refnic_emu_flows_reset(struct refnic_emu *emu);

#endif /* _REFNIC_EMU_FLOW_H_ */
