/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Cables wire a device's port to the world. "loopback" wires a port to
 * itself; any other name is a cable with two ends, and the two ports of this
 * process that name it are wired back to back. A port whose cable has no
 * other end has no link. Callers hold the device lock.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_string_fns.h>

#include "refnic_emu_priv.h"

#define REFNIC_CABLE_LOOPBACK	"loopback"

struct refnic_cable {
	TAILQ_ENTRY(refnic_cable) next;
	char name[REFNIC_EMU_NAME_LEN];
	struct refnic_emu *end[2];
	bool unplugged;
};

static TAILQ_HEAD(, refnic_cable) refnic_cables = TAILQ_HEAD_INITIALIZER(refnic_cables);

static struct refnic_cable *
cable_find(const char *name)
{
	struct refnic_cable *c;

	TAILQ_FOREACH(c, &refnic_cables, next)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

static bool
cable_is_loopback(const struct refnic_cable *c)
{
	return strcmp(c->name, REFNIC_CABLE_LOOPBACK) == 0;
}

int
refnic_cable_attach(struct refnic_emu *emu, const char *name)
{
	struct refnic_cable *c = NULL;

	/* Every loopback cable is private to its port. */
	if (strcmp(name, REFNIC_CABLE_LOOPBACK) != 0)
		c = cable_find(name);
	if (c == NULL) {
		c = calloc(1, sizeof(*c));
		if (c == NULL)
			return -ENOMEM;
		strlcpy(c->name, name, sizeof(c->name));
		TAILQ_INSERT_TAIL(&refnic_cables, c, next);
	} else if (c->end[0] != NULL && c->end[1] != NULL) {
		EMU_LOG(ERR, "%s: cable '%s' already connects %s and %s",
			emu->name, name, c->end[0]->name, c->end[1]->name);
		return -EBUSY;
	}
	c->end[c->end[0] == NULL ? 0 : 1] = emu;
	emu->cable = c;
	refnic_emu_update_link(emu);
	if (refnic_cable_peer(emu) != NULL && refnic_cable_peer(emu) != emu)
		refnic_emu_update_link(refnic_cable_peer(emu));
	return 0;
}

void
refnic_cable_detach(struct refnic_emu *emu)
{
	struct refnic_cable *c = emu->cable;
	struct refnic_emu *peer;

	if (c == NULL)
		return;
	peer = refnic_cable_peer(emu);
	c->end[c->end[0] == emu ? 0 : 1] = NULL;
	emu->cable = NULL;
	if (peer != NULL && peer != emu)
		refnic_emu_update_link(peer);
	if (c->end[0] == NULL && c->end[1] == NULL) {
		TAILQ_REMOVE(&refnic_cables, c, next);
		free(c);
	}
}

struct refnic_emu *
refnic_cable_peer(const struct refnic_emu *emu)
{
	const struct refnic_cable *c = emu->cable;

	if (c == NULL || c->unplugged)
		return NULL;
	if (cable_is_loopback(c))
		return c->end[0];
	return c->end[0] == emu ? c->end[1] : c->end[0];
}

void
refnic_cable_set_plugged(struct refnic_emu *emu, bool plugged)
{
	struct refnic_cable *c = emu->cable;
	int i;

	if (c == NULL)
		return;
	c->unplugged = !plugged;
	for (i = 0; i < 2; i++)
		if (c->end[i] != NULL)
			refnic_emu_update_link(c->end[i]);
}
