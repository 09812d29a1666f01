/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_DEVARGS_H_
#define _REFNIC_EMU_DEVARGS_H_

/* The device's own devargs (refnic_emu_devargs.c). */

#include <stddef.h>

#include "refnic_emu.h"

/* Settings back in the form users type them. */
const char *refnic_emu_exec_name(enum refnic_emu_exec exec);
int refnic_emu_fault_admin_timeout_format(const struct refnic_emu_faults *f, char *buf,
					  size_t len);
int refnic_emu_fault_corrupt_format(const struct refnic_emu_faults *f, char *buf, size_t len);

#endif /* _REFNIC_EMU_DEVARGS_H_ */
