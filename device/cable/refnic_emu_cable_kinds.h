/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_CABLE_KINDS_H_
#define _REFNIC_EMU_CABLE_KINDS_H_

/* Each kind of cable's ops, gathered in refnic_emu_cable_kinds[]. */

#include "refnic_emu_cable.h"

extern const struct refnic_emu_cable_ops refnic_emu_cable_shm_ops;
extern const struct refnic_emu_cable_ops refnic_emu_cable_tap_ops;
extern const struct refnic_emu_cable_ops refnic_emu_cable_vxlan_ops;
extern const struct refnic_emu_cable_ops refnic_emu_cable_local_ops;

#endif /* _REFNIC_EMU_CABLE_KINDS_H_ */
