/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_H_
#define _REFNIC_EMU_H_

/*
 * The refnic NIC in software: the API the bus side of probe uses to create
 * an instance and hand its resources to the PMD, as the PCI bus hands a
 * mem_resource and an intr_handle. Nothing in drivers/net/refnic/ other than
 * the bus glue includes this file.
 */

#include <stdint.h>

#include "refnic_hw.h"
#include "refnic_emu_bar.h"

#define REFNIC_EMU_NAME_LEN		64

/* Timing profiles: what the modelled platform charges. See refnic_profile.c. */
enum refnic_emu_profile {
	REFNIC_PROFILE_IDEAL,		/* nothing costs anything */
	REFNIC_PROFILE_BAREMETAL,	/* PCIe device on bare metal */
	REFNIC_PROFILE_VM,		/* same device behind a VM exit */
	REFNIC_PROFILE_COUNT
};

struct refnic_emu_params {
	/* "loopback", or a name: two ports naming it are wired together. */
	char cable[REFNIC_EMU_NAME_LEN];
	enum refnic_emu_profile profile;
	uint16_t max_queues;		/* queue pairs the device offers */
	uint32_t admin_latency_pct;	/* scales admin latencies, 100 = as profiled */
};

/* Resources the bus hands to the driver. */
struct refnic_emu_resources {
	uint8_t *bar0;			/* REFNIC_BAR0_SIZE bytes of registers */
	struct refnic_emu_link *link;	/* the emulated BAR's trap side */
	uint16_t nb_vectors;
	int vector_fd[REFNIC_MAX_VECTORS]; /* eventfds, one per vector */
};

struct refnic_emu;

void refnic_emu_params_default(struct refnic_emu_params *params);

/* Profile names as users type them; NULL for an unknown id. */
const char *refnic_emu_profile_name(enum refnic_emu_profile profile);
int refnic_emu_profile_parse(const char *name, enum refnic_emu_profile *profile);

/* Create a device instance; starts the shared engine with the first one. */
int refnic_emu_create(const char *name, const struct refnic_emu_params *params,
		      struct refnic_emu **out);
void refnic_emu_destroy(struct refnic_emu *emu);
void refnic_emu_get_resources(const struct refnic_emu *emu,
			      struct refnic_emu_resources *res);

/* Lab access for tests: the device's own counters, read directly. */
struct refnic_emu *refnic_emu_lookup(const char *name);
void refnic_emu_read_stats(struct refnic_emu *emu, struct refnic_hw_stats *stats);

#endif /* _REFNIC_EMU_H_ */
