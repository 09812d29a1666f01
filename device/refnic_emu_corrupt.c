/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Hostile-device mode (fault_corrupt=KIND:N): one in N of the entries the
 * device writes into host memory (completions, events, admin reply
 * buffers), of the kinds chosen, comes out garbled, as from buggy firmware
 * or a hostile device model. Each garbled entry still carries a valid
 * phase bit (a reply, its command's completion), so the driver takes it
 * for real: it
 * must check it, drop or stop, count, and never reach outside its rings.
 * Which writes is pseudo-random (one in N on average, the same sequence on
 * every run): a fixed period would garble the same command of a bring-up
 * sequence every time. The variants rotate, so that every check the
 * driver makes is hit.
 */

#include <string.h>

#include "refnic_emu_corrupt.h"
#include "refnic_emu_engine.h"
#include "refnic_emu_priv.h"

/* Is the next write of this kind one to garble? A fuzzer's hook sees it first. */
static bool
corrupt_due(struct refnic_emu *emu, uint8_t what, void *entry, size_t len, uint32_t *variant)
{
	refnic_emu_tamper_t tamper = __atomic_load_n(&emu->corrupt.tamper, __ATOMIC_ACQUIRE);
	uint64_t n;

	if (unlikely(tamper != NULL))
		tamper(emu->corrupt.tamper_ctx, what, entry, len);
	if (likely(!(emu->faults.corrupt_what & what)))
		return false;
	n = refnic_emu_mix64(__atomic_add_fetch(&emu->corrupt.seq, 1, __ATOMIC_RELAXED));
	if (n % emu->faults.corrupt_every != 0)
		return false;
	*variant = __atomic_fetch_add(&emu->corrupt.garbled, 1, __ATOMIC_RELAXED);
	return true;
}

void
refnic_emu_corrupt_rx_cpl(struct refnic_emu *emu, struct refnic_rx_cpl *cpl, uint16_t size)
{
	uint32_t v;

	if (!corrupt_due(emu, REFNIC_EMU_CORRUPT_RX, cpl, sizeof(*cpl), &v))
		return;
	switch (v % 4) {
	case 0:
		cpl->desc_idx = size + (v & 0xff);	/* beyond the ring */
		break;
	case 1:
		cpl->desc_idx = (cpl->desc_idx + 1) & (size - 1); /* not the next one */
		break;
	case 2:
		cpl->len = UINT16_MAX;			/* beyond the buffer */
		break;
	default:
		cpl->flags = UINT16_MAX & ~REFNIC_RXC_EOP; /* a chain that never ends */
		cpl->ptype = UINT8_MAX;
		break;
	}
}

void
refnic_emu_corrupt_tx_cpl(struct refnic_emu *emu, struct refnic_tx_cpl *cpl, uint16_t size)
{
	uint32_t v;

	if (!corrupt_due(emu, REFNIC_EMU_CORRUPT_TX, cpl, sizeof(*cpl), &v))
		return;
	/* Beyond the ring, or a head the driver never handed out. */
	cpl->sq_head = v % 2 == 0 ? size + (v & 0xff) : (cpl->sq_head + size / 2) & (size - 1);
	cpl->status = v & 0xff;
}

void
refnic_emu_corrupt_admin_cpl(struct refnic_emu *emu, struct refnic_admin_cpl *cpl)
{
	uint32_t v;

	if (!corrupt_due(emu, REFNIC_EMU_CORRUPT_ADMIN, cpl, sizeof(*cpl), &v))
		return;
	switch (v % 3) {
	case 0:
		cpl->cmd_id ^= 0x5a5a;		/* another command's */
		break;
	case 1:
		cpl->status = UINT16_MAX;	/* no such status */
		break;
	default:
		cpl->result = UINT32_MAX;
		break;
	}
}

void
refnic_emu_corrupt_event(struct refnic_emu *emu, struct refnic_event *ev)
{
	uint32_t v;

	if (!corrupt_due(emu, REFNIC_EMU_CORRUPT_EVENT, ev, sizeof(*ev), &v))
		return;
	if (v % 2 == 0) {
		ev->type = UINT16_MAX;			/* no such event */
	} else {
		ev->type = REFNIC_EVENT_QUEUE_ERROR;	/* a queue nobody has */
		ev->data = (uint32_t)UINT16_MAX << 16 | UINT16_MAX;
	}
}

/*
 * IDENTIFY: every limit the driver lives by, each out of range in turn:
 * some impossible (the driver must refuse the device), some beyond what
 * the contract allows (it must clamp), and a device that contradicts its
 * own registers.
 */
static void
corrupt_identify(struct refnic_identify *id, uint32_t v)
{
	switch (v % 15) {
	case 0:
		id->magic = ~id->magic;
		break;
	case 1:
		id->max_queues = 0;
		break;
	case 2:
		id->max_queues = UINT16_MAX;
		id->num_vectors = UINT16_MAX;
		break;
	case 3:
		id->min_ring_size = REFNIC_MAX_RING_SIZE;
		id->max_ring_size = REFNIC_MIN_RING_SIZE;
		break;
	case 4:
		id->max_ring_size = 1000;	/* not a power of two */
		break;
	case 5:
		id->max_tx_segs = 0;
		break;
	case 6:
		id->max_tx_segs = UINT16_MAX;
		break;
	case 7:
		id->min_mtu = REFNIC_MAX_MTU;
		id->max_mtu = REFNIC_MIN_MTU;
		break;
	case 8:
		id->max_mtu = UINT16_MAX;
		break;
	case 9:
		id->min_rx_buf_size = UINT16_MAX;
		break;
	case 10:
		id->num_vectors = 1;		/* none for any queue */
		break;
	case 11:
		id->rss_key_size = 1;
		id->rss_reta_size = 4096;
		break;
	case 12:
		id->caps = ~id->caps;		/* not what CAPS_LO/HI say */
		break;
	case 13:
		id->hw_version += 1u << 16;	/* another major version */
		break;
	default:
		memset(id->fw_version, 'X', sizeof(id->fw_version)); /* no NUL */
		id->max_mac_filters = UINT16_MAX;
		id->link_speed_mbps = UINT32_MAX - 1;
		break;
	}
}

/* STATS_GET: counters that go backwards, counts for queues the device lacks. */
static void
corrupt_stats(const struct refnic_emu *emu, struct refnic_hw_stats *st, uint32_t v)
{
	switch (v % 3) {
	case 0:
		st->admin_commands = 0;
		break;
	case 1:
		st->resets = 0;
		break;
	default:
		if (emu->params.max_queues < REFNIC_MAX_QUEUES)
			st->q[emu->params.max_queues].rx_packets = UINT64_MAX / 2;
		else
			st->dma_reads = 0;
		break;
	}
}

/* RSS_GET: a RETA naming queues nobody has, hash types nobody defined. */
static void
corrupt_rss(const struct refnic_emu *emu, struct refnic_rss_config *rss, uint32_t v)
{
	switch (v % 3) {
	case 0:
		rss->reta[v % REFNIC_RSS_RETA_SIZE] = UINT8_MAX;
		break;
	case 1:
		rss->hash_types |= 0x80000000u;
		break;
	default:
		rss->reta[REFNIC_RSS_RETA_SIZE - 1] = RTE_MIN(emu->params.max_queues, UINT8_MAX);
		break;
	}
}

/*
 * A reply buffer, already in host memory, before the command's completion
 * says it is there. Each command's variants rotate on their own, so that
 * a run of resets walks every IDENTIFY variant in order.
 */
void
refnic_emu_corrupt_reply(struct refnic_emu *emu, uint8_t opcode, void *data, uint32_t len)
{
	uint32_t v;

	if (!corrupt_due(emu, REFNIC_EMU_CORRUPT_REPLY, data, len, &v) ||
	    opcode >= REFNIC_ADMIN_OPCODE_MAX)
		return;
	v = emu->corrupt.reply_garbled[opcode]++;
	switch (opcode) {
	case REFNIC_ADMIN_IDENTIFY:
		if (len >= sizeof(struct refnic_identify))
			corrupt_identify(data, v);
		break;
	case REFNIC_ADMIN_STATS_GET:
		if (len >= sizeof(struct refnic_hw_stats))
			corrupt_stats(emu, data, v);
		break;
	case REFNIC_ADMIN_RSS_GET:
		if (len >= sizeof(struct refnic_rss_config))
			corrupt_rss(emu, data, v);
		break;
	default:
		memset(data, 'X', len);		/* FW_VERSION: no NUL */
		break;
	}
}

uint64_t
refnic_emu_corrupted(struct refnic_emu *emu)
{
	return __atomic_load_n(&emu->corrupt.garbled, __ATOMIC_RELAXED);
}

void
refnic_emu_set_tamper(struct refnic_emu *emu, refnic_emu_tamper_t fn, void *ctx)
{
	refnic_emu_lock();
	emu->corrupt.tamper_ctx = ctx;
	__atomic_store_n(&emu->corrupt.tamper, fn, __ATOMIC_RELEASE);	/* ctx first */
	refnic_emu_unlock();
}
