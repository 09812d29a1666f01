/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_FILTER_H_
#define _REFNIC_EMU_FILTER_H_

/* The port's receive filter (refnic_emu_filter.c): what it accepts, and
 * the admin commands that say so. */

#include <stdbool.h>
#include <stdint.h>

#include "refnic_hw.h"

struct refnic_emu;

bool refnic_emu_rx_accept(struct refnic_emu *emu, const uint8_t *hdr, uint32_t hdr_len);
uint16_t refnic_emu_admin_filter(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd);
void refnic_emu_filters_reset(struct refnic_emu *emu);

#endif /* _REFNIC_EMU_FILTER_H_ */
