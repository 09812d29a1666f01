/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Cables wire a device's port to the world:
 *   loopback    the port to itself;
 *   NAME        the two ports of this process that name it, back to back;
 *   shm:NAME    two ports in two processes (refnic_emu_cable_shm.c);
 *   tap:IF      the port to a Linux TAP interface (refnic_emu_cable_tap.c);
 *   vxlan:ADDR  the port to a VXLAN peer on the network (refnic_emu_cable_vxlan.c).
 * This file dispatches to the kind and implements the in-process ones. A
 * port whose cable has no other end has no link. Callers hold the device
 * lock.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "refnic_emu_cable.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_queue.h"

#define REFNIC_CABLE_LOOPBACK	"loopback"

/* loopback and in-process pairs */
struct local_cable {
	struct refnic_cable c;
	TAILQ_ENTRY(local_cable) next;
	char name[REFNIC_EMU_NAME_LEN];
	struct refnic_emu *end[2];
	bool loopback;
	bool unplugged;
};

static TAILQ_HEAD(, local_cable) local_cables = TAILQ_HEAD_INITIALIZER(local_cables);

/* The other end, if the link is up: plugged, and both PHYs on. */
static struct refnic_emu *
local_peer(const struct local_cable *lc, const struct refnic_emu *emu)
{
	struct refnic_emu *peer;

	if (lc->unplugged || __atomic_load_n(&emu->phy_down, __ATOMIC_ACQUIRE))
		return NULL;
	if (lc->loopback)
		return lc->end[0];
	peer = lc->end[0] == emu ? lc->end[1] : lc->end[0];
	return peer != NULL && !__atomic_load_n(&peer->phy_down, __ATOMIC_ACQUIRE) ? peer : NULL;
}

static void
local_tx(struct refnic_cable *c, struct refnic_emu *emu, const struct refnic_frame *f,
	 struct refnic_rx_batch *b)
{
	struct refnic_emu *peer = local_peer((struct local_cable *)c, emu);

	if (peer == NULL)
		emu_stats(emu)->cable_tx_dropped++;
	else
		refnic_emu_rx_frame(peer, f, b);
}

static void
local_tx_flush(struct refnic_cable *c __rte_unused, struct refnic_emu *emu __rte_unused,
	       struct refnic_rx_batch *b)
{
	refnic_emu_rx_batch_end(b);
}

static bool
local_link_up(const struct refnic_cable *c, const struct refnic_emu *emu)
{
	return local_peer((const struct local_cable *)c, emu) != NULL;
}

static void
local_update_ends(struct local_cable *lc)
{
	int i;

	for (i = 0; i < 2; i++)
		if (lc->end[i] != NULL)
			refnic_emu_update_link(lc->end[i]);
}

static void
local_set_plugged(struct refnic_cable *c, struct refnic_emu *emu __rte_unused, bool plugged)
{
	struct local_cable *lc = (struct local_cable *)c;

	lc->unplugged = !plugged;
	local_update_ends(lc);
}

static void
local_detach(struct refnic_cable *c, struct refnic_emu *emu)
{
	struct local_cable *lc = (struct local_cable *)c;

	lc->end[lc->end[0] == emu ? 0 : 1] = NULL;
	local_update_ends(lc);
	if (lc->end[0] == NULL && lc->end[1] == NULL) {
		TAILQ_REMOVE(&local_cables, lc, next);
		rte_free(lc);
	}
}

static const struct refnic_cable_ops local_cable_ops = {
	.tx = local_tx,
	.tx_flush = local_tx_flush,
	.link_up = local_link_up,
	.set_plugged = local_set_plugged,
	.detach = local_detach,
};

static int
local_attach(struct refnic_emu *emu, const char *name, struct refnic_cable **out)
{
	bool loopback = strcmp(name, REFNIC_CABLE_LOOPBACK) == 0;
	struct local_cable *lc = NULL, *it;

	/* Every loopback cable is private to its port. */
	if (!loopback)
		TAILQ_FOREACH(it, &local_cables, next)
			if (strcmp(it->name, name) == 0)
				lc = it;
	if (lc == NULL) {
		/* In DPDK's memory: a secondary's doorbells deliver through it. */
		lc = rte_zmalloc("refnic_cable", sizeof(*lc), 0);
		if (lc == NULL)
			return -ENOMEM;
		lc->c.ops = &local_cable_ops;
		lc->c.in_process = true;
		lc->loopback = loopback;
		strlcpy(lc->name, name, sizeof(lc->name));
		TAILQ_INSERT_TAIL(&local_cables, lc, next);
	} else if (lc->end[0] != NULL && lc->end[1] != NULL) {
		EMU_LOG(ERR, "%s: cable '%s' already connects %s and %s",
			emu->name, name, lc->end[0]->name, lc->end[1]->name);
		return -EBUSY;
	}
	lc->end[lc->end[0] == NULL ? 0 : 1] = emu;
	*out = &lc->c;
	return 0;
}

int
refnic_cable_attach(struct refnic_emu *emu, const char *spec)
{
	struct refnic_cable *c;
	int ret;

	if (strncmp(spec, REFNIC_CABLE_SHM_PREFIX, strlen(REFNIC_CABLE_SHM_PREFIX)) == 0)
		ret = refnic_cable_shm_attach(emu, spec + strlen(REFNIC_CABLE_SHM_PREFIX), &c);
	else if (strncmp(spec, REFNIC_CABLE_TAP_PREFIX, strlen(REFNIC_CABLE_TAP_PREFIX)) == 0)
		ret = refnic_cable_tap_attach(emu, spec + strlen(REFNIC_CABLE_TAP_PREFIX), &c);
	else if (strncmp(spec, REFNIC_CABLE_VXLAN_PREFIX, strlen(REFNIC_CABLE_VXLAN_PREFIX)) == 0)
		ret = refnic_cable_vxlan_attach(emu, spec + strlen(REFNIC_CABLE_VXLAN_PREFIX), &c);
	else
		ret = local_attach(emu, spec, &c);
	if (ret != 0)
		return ret;
	emu->cable = c;
	/* The far end of an in-process pair gains its link too. */
	if (c->ops == &local_cable_ops)
		local_update_ends((struct local_cable *)c);
	else
		refnic_emu_update_link(emu);
	return 0;
}

void
refnic_cable_detach(struct refnic_emu *emu)
{
	struct refnic_cable *c = emu->cable;

	if (c == NULL)
		return;
	emu->cable = NULL;
	c->ops->detach(c, emu);
}

bool
refnic_cable_link_up(const struct refnic_emu *emu)
{
	return emu->cable != NULL && !__atomic_load_n(&emu->phy_down, __ATOMIC_ACQUIRE) &&
	       emu->cable->ops->link_up(emu->cable, emu);
}

/*
 * In this process both ends of a pair see the link go and come back, and
 * over shm too (the far end reads our PHY in the cable's file). Over TAP
 * only this end does: the kernel is not told; its frames are dropped here.
 */
void
refnic_cable_set_phy(struct refnic_emu *emu, bool on)
{
	/* Atomic: senders look at both ends' PHY in their inline TX, without
	 * the admin's engine locks (local_peer()). */
	__atomic_store_n(&emu->phy_down, !on, __ATOMIC_RELEASE);
	if (emu->cable != NULL && emu->cable->ops == &local_cable_ops)
		local_update_ends((struct local_cable *)emu->cable);
	else
		refnic_emu_update_link(emu);
}

void
refnic_cable_tx(struct refnic_emu *emu, const struct refnic_frame *f, struct refnic_rx_batch *b)
{
	if (unlikely(__atomic_load_n(&emu->phy_down, __ATOMIC_ACQUIRE))) {
		emu_stats(emu)->cable_tx_dropped++;
		return;
	}
	if (emu->cable->in_process)
		local_tx(emu->cable, emu, f, b);
	else
		emu->cable->ops->tx(emu->cable, emu, f, b);
}

void
refnic_cable_tx_plain(struct refnic_emu *emu, const struct refnic_plain_frame *pf,
		      unsigned int n, struct refnic_rx_batch *b)
{
	struct refnic_frame f;
	struct refnic_emu *peer;
	unsigned int i;

	/* In this process: the far end looked up once (its PHY, ours, the plug). */
	if (likely(emu->cable->in_process)) {
		peer = local_peer((struct local_cable *)emu->cable, emu);
		if (peer == NULL)
			emu_stats(emu)->cable_tx_dropped += n;
		else
			refnic_emu_rx_plain(peer, pf, n, b);
		return;
	}
	refnic_frame_plain_init(&f);
	for (i = 0; i < n; i++) {
		refnic_frame_plain_set(&f, &pf[i]);
		refnic_cable_tx(emu, &f, b);
	}
}

bool
refnic_cable_in_process(const struct refnic_emu *emu)
{
	return emu->cable != NULL && emu->cable->in_process;
}

bool
refnic_cable_external(const struct refnic_emu *emu)
{
	/* An in-process cable's first: a secondary cannot read the ops. */
	return emu->cable != NULL && !emu->cable->in_process && emu->cable->ops->brings_frames;
}

void
refnic_cable_tx_flush(struct refnic_emu *emu, struct refnic_rx_batch *b)
{
	if (emu->cable->in_process)
		local_tx_flush(emu->cable, emu, b);
	else
		emu->cable->ops->tx_flush(emu->cable, emu, b);
}

unsigned int
refnic_cable_rx_service(struct refnic_emu *emu, uint64_t now)
{
	struct refnic_cable *c = emu->cable;

	return c != NULL && c->ops->rx_service != NULL ? c->ops->rx_service(c, emu, now) : 0;
}

void
refnic_cable_set_plugged(struct refnic_emu *emu, bool plugged)
{
	if (emu->cable != NULL)
		emu->cable->ops->set_plugged(emu->cable, emu, plugged);
}

int
refnic_cable_doze_prepare(struct refnic_emu *emu)
{
	struct refnic_cable *c = emu->cable;

	return c != NULL && c->ops->doze_prepare != NULL ? c->ops->doze_prepare(c) : -1;
}

void
refnic_cable_doze_end(struct refnic_emu *emu)
{
	struct refnic_cable *c = emu->cable;

	if (c != NULL && c->ops->doze_end != NULL)
		c->ops->doze_end(c);
}
