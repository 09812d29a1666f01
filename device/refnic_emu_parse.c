/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/* Where a frame's headers are: one parser for packet types, RSS and checksums. */

#include "refnic_emu_parse.h"

void
refnic_emu_parse(const uint8_t *p, uint32_t len, struct refnic_pkt_hdrs *h)
{
	refnic_emu_parse_inline(p, len, h);
}
