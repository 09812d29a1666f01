/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The port's cable, whatever its kind (device/cable/): the kind is chosen
 * by the cable= value's prefix, and every call goes through its ops. A port
 * whose cable has no other end has no link. Callers hold the device lock,
 * but for the TX calls, made by the threads that run the port's TX work.
 */

#include <errno.h>
#include <string.h>

#include "refnic_emu_cable.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_queue.h"

/* The kind whose prefix the spec starts with; the last one takes the rest. */
static uint8_t
cable_kind_of(const char *spec, const char **name)
{
	const struct refnic_emu_cable_ops *ops;
	uint8_t k;

	for (k = 0; (ops = refnic_emu_cable_kinds[k])->prefix != NULL; k++)
		if (strncmp(spec, ops->prefix, strlen(ops->prefix)) == 0)
			break;
	*name = ops->prefix != NULL ? spec + strlen(ops->prefix) : spec;
	return k;
}

bool
refnic_emu_cable_addr_valid(const char *prefix, const char *addr)
{
	const struct refnic_emu_cable_ops *ops;
	const char *rest;

	ops = refnic_emu_cable_kinds[cable_kind_of(prefix, &rest)];
	return ops->prefix != NULL && ops->addr_valid != NULL && ops->addr_valid(addr);
}

static void
cable_link_changed(struct refnic_emu *emu)
{
	struct refnic_emu_cable *c = emu->cable;

	if (c != NULL && refnic_emu_cable_ops(c)->link_changed != NULL)
		refnic_emu_cable_ops(c)->link_changed(c, emu);
	else
		refnic_emu_update_link(emu);
}

int
refnic_emu_cable_attach(struct refnic_emu *emu, const char *spec)
{
	struct refnic_emu_cable *c;
	const char *name;
	uint8_t kind;
	int ret;

	kind = cable_kind_of(spec, &name);
	ret = refnic_emu_cable_kinds[kind]->attach(emu, name, &c);
	if (ret != 0)
		return ret;
	c->kind = kind;
	emu->cable = c;
	/* The far end of an in-process pair gains its link too. */
	cable_link_changed(emu);
	return 0;
}

void
refnic_emu_cable_detach(struct refnic_emu *emu)
{
	struct refnic_emu_cable *c = emu->cable;

	if (c == NULL)
		return;
	emu->cable = NULL;
	refnic_emu_cable_ops(c)->detach(c, emu);
}

bool
refnic_emu_cable_link_up(const struct refnic_emu *emu)
{
	return emu->cable != NULL && !__atomic_load_n(&emu->phy_down, __ATOMIC_ACQUIRE) &&
	       refnic_emu_cable_ops(emu->cable)->link_up(emu->cable, emu);
}

/*
 * In this process both ends of a pair see the link go and come back, and
 * over shm too (the far end reads our PHY in the cable's file). Over TAP
 * only this end does: the kernel is not told; its frames are dropped here.
 */
void
refnic_emu_cable_set_phy(struct refnic_emu *emu, bool on)
{
	/* Atomic: senders look at both ends' PHY in their inline TX, without
	 * the admin's engine locks. */
	__atomic_store_n(&emu->phy_down, !on, __ATOMIC_RELEASE);
	cable_link_changed(emu);
}

/* A kind without tx_plain: the frames one by one, as refnic_emu_cable_tx(). */
void
refnic_emu_cable_tx_each(struct refnic_emu *emu, const struct refnic_plain_frame *pf,
			 unsigned int n, struct refnic_rx_batch *b)
{
	struct refnic_frame f;
	unsigned int i;

	refnic_emu_frame_plain_init(&f);
	for (i = 0; i < n; i++) {
		refnic_emu_frame_plain_set(&f, &pf[i]);
		refnic_emu_cable_tx(emu, &f, b);
	}
}

bool
refnic_emu_cable_in_process(const struct refnic_emu *emu)
{
	return emu->cable != NULL && emu->cable->in_process;
}

bool
refnic_emu_cable_external(const struct refnic_emu *emu)
{
	/* An in-process cable's first: asked at every doorbell. */
	return emu->cable != NULL && !emu->cable->in_process &&
	       refnic_emu_cable_ops(emu->cable)->brings_frames;
}

unsigned int
refnic_emu_cable_rx_service(struct refnic_emu *emu, uint64_t now)
{
	struct refnic_emu_cable *c = emu->cable;

	return c != NULL && refnic_emu_cable_ops(c)->rx_service != NULL ?
	       refnic_emu_cable_ops(c)->rx_service(c, emu, now) : 0;
}

void
refnic_emu_cable_set_plugged(struct refnic_emu *emu, bool plugged)
{
	if (emu->cable != NULL)
		refnic_emu_cable_ops(emu->cable)->set_plugged(emu->cable, emu, plugged);
}

int
refnic_emu_cable_doze_prepare(struct refnic_emu *emu)
{
	struct refnic_emu_cable *c = emu->cable;

	return c != NULL && refnic_emu_cable_ops(c)->doze_prepare != NULL ?
	       refnic_emu_cable_ops(c)->doze_prepare(c) : -1;
}

void
refnic_emu_cable_doze_end(struct refnic_emu *emu)
{
	struct refnic_emu_cable *c = emu->cable;

	if (c != NULL && refnic_emu_cable_ops(c)->doze_end != NULL)
		refnic_emu_cable_ops(c)->doze_end(c);
}
