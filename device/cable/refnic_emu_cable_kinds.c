/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The kinds of cable, in the order their cable= prefixes are tried. A cable
 * keeps its index here (struct refnic_emu_cable's kind), so that each
 * process calls its own code for it.
 */

#include "refnic_emu_cable_kinds.h"

const struct refnic_emu_cable_ops *const refnic_emu_cable_kinds[] = {
	&refnic_emu_cable_shm_ops,	/* shm:NAME */
	&refnic_emu_cable_tap_ops,	/* tap:IFNAME */
	&refnic_emu_cable_vxlan_ops,	/* vxlan:ADDR[:PORT] */
	&refnic_emu_cable_local_ops,	/* loopback, NAME: the rest, last */
};
