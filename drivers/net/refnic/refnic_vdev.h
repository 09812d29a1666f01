/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_VDEV_H_
#define _REFNIC_VDEV_H_

/* The bus side of probe (refnic_vdev.c), what its fuzzer reaches too. */

#include "refnic_devargs.h"
#include "refnic_emu.h"

/*
 * Split one devargs string between the driver (drv) and the device
 * (params) and parse each side; 0, or -EINVAL with one log line.
 */
int refnic_vdev_parse_args(const char *name, const char *args, struct refnic_devargs *drv,
			   struct refnic_emu_params *params);

#endif /* _REFNIC_VDEV_H_ */
