/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Hostile-device mode (fault_corrupt=KIND:N): one in N of the entries the
 * device writes into host memory, of the kinds chosen, comes out garbled,
 * as from buggy firmware or a hostile device model. Each garbled entry
 * still carries a valid phase bit, so the driver takes it for real: it
 * must check it, drop or stop, count, and never reach outside its rings.
 * Which writes is pseudo-random (one in N on average, the same sequence on
 * every run): a fixed period would garble the same command of a bring-up
 * sequence every time. The variants rotate, so that every check the
 * driver makes is hit.
 */

#include "refnic_emu_priv.h"

/* Is the next write of this kind one to garble? A fuzzer's hook sees it first. */
static bool
corrupt_due(struct refnic_emu *emu, uint8_t what, void *entry, size_t len, uint32_t *variant)
{
	refnic_emu_tamper_t tamper = __atomic_load_n(&emu->tamper, __ATOMIC_ACQUIRE);
	uint64_t n;

	if (unlikely(tamper != NULL))
		tamper(emu->tamper_ctx, what, entry, len);
	if (likely(!(emu->faults.corrupt_what & what)))
		return false;
	n = refnic_emu_mix64(__atomic_add_fetch(&emu->corrupt_seq, 1, __ATOMIC_RELAXED));
	if (n % emu->faults.corrupt_every != 0)
		return false;
	*variant = __atomic_fetch_add(&emu->corrupted, 1, __ATOMIC_RELAXED);
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

uint64_t
refnic_emu_corrupted(struct refnic_emu *emu)
{
	return __atomic_load_n(&emu->corrupted, __ATOMIC_RELAXED);
}

void
refnic_emu_set_tamper(struct refnic_emu *emu, refnic_emu_tamper_t fn, void *ctx)
{
	refnic_emu_lock();
	emu->tamper_ctx = ctx;
	__atomic_store_n(&emu->tamper, fn, __ATOMIC_RELEASE);	/* ctx first */
	refnic_emu_unlock();
}
