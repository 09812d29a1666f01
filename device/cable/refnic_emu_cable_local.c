/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The cables whose two ends are in this process:
 *   loopback    the port to itself;
 *   NAME        the two ports of this process that name it, back to back.
 * A frame goes straight into the far end's receive path on the thread that
 * sent it. The cable lies in DPDK's memory: a secondary's doorbells
 * deliver through it.
 */

#include <errno.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "refnic_emu_cable.h"
#include "refnic_emu_cable_kinds.h"
#include "refnic_emu_cable_services.h"

#define LOCAL_CABLE_LOOPBACK	"loopback"

struct local_cable {
	struct refnic_emu_cable c;
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
local_tx(struct refnic_emu_cable *c, struct refnic_emu *emu, const struct refnic_frame *f,
	 struct refnic_rx_batch *b)
{
	struct refnic_emu *peer = local_peer((struct local_cable *)c, emu);

	if (peer == NULL)
		refnic_emu_svc_stats(emu)->cable_tx_dropped++;
	else
		refnic_emu_svc_rx_frame(peer, f, b);
}

/* The far end looked up once (its PHY, ours, the plug). */
static void
local_tx_plain(struct refnic_emu_cable *c, struct refnic_emu *emu,
	       const struct refnic_plain_frame *pf, unsigned int n, struct refnic_rx_batch *b)
{
	struct refnic_emu *peer = local_peer((struct local_cable *)c, emu);

	if (peer == NULL)
		refnic_emu_svc_stats(emu)->cable_tx_dropped += n;
	else
		refnic_emu_svc_rx_plain(peer, pf, n, b);
}

static void
local_tx_flush(struct refnic_emu_cable *c __rte_unused, struct refnic_emu *emu __rte_unused,
	       struct refnic_rx_batch *b)
{
	refnic_emu_svc_rx_batch_end(b);
}

static bool
local_link_up(const struct refnic_emu_cable *c, const struct refnic_emu *emu)
{
	return local_peer((const struct local_cable *)c, emu) != NULL;
}

/* Both ends see the link change. */
static void
local_link_changed(struct refnic_emu_cable *c, struct refnic_emu *emu __rte_unused)
{
	struct local_cable *lc = (struct local_cable *)c;
	int i;

	for (i = 0; i < 2; i++)
		if (lc->end[i] != NULL)
			refnic_emu_svc_update_link(lc->end[i]);
}

static void
local_set_plugged(struct refnic_emu_cable *c, struct refnic_emu *emu, bool plugged)
{
	struct local_cable *lc = (struct local_cable *)c;

	lc->unplugged = !plugged;
	local_link_changed(c, emu);
}

static void
local_detach(struct refnic_emu_cable *c, struct refnic_emu *emu)
{
	struct local_cable *lc = (struct local_cable *)c;

	lc->end[lc->end[0] == emu ? 0 : 1] = NULL;
	local_link_changed(c, emu);
	if (lc->end[0] == NULL && lc->end[1] == NULL) {
		TAILQ_REMOVE(&local_cables, lc, next);
		rte_free(lc);
	}
}

static int
local_attach(struct refnic_emu *emu, const char *name, struct refnic_emu_cable **out)
{
	bool loopback = strcmp(name, LOCAL_CABLE_LOOPBACK) == 0;
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

const struct refnic_emu_cable_ops refnic_emu_cable_local_ops = {
	.prefix = NULL,
	.attach = local_attach,
	.tx = local_tx,
	.tx_plain = local_tx_plain,
	.tx_flush = local_tx_flush,
	.link_up = local_link_up,
	.set_plugged = local_set_plugged,
	.link_changed = local_link_changed,
	.detach = local_detach,
};
