/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/* Where a frame's headers are: one parser for packet types, RSS and checksums. */

#include "refnic_emu_parse.h"

void
refnic_emu_parse(const uint8_t *p, uint32_t len, struct refnic_pkt_hdrs *h)
{
	uint32_t l3 = EMU_ETH_HLEN;
	uint16_t ethertype;

	h->ip_version = 0;
	h->frag = false;
	h->len = len;
	if (len < EMU_ETH_HLEN)
		return;
	ethertype = p[12] << 8 | p[13];
	if (ethertype == EMU_ETH_P_VLAN && len >= EMU_ETH_HLEN + 4) {
		ethertype = p[16] << 8 | p[17];
		l3 += 4;	/* one tag looked through */
	}
	if (ethertype == EMU_ETH_P_IPV4 && len >= l3 + 20 && (p[l3] >> 4) == 4 &&
	    (p[l3] & 0x0f) >= 5 && len >= l3 + (p[l3] & 0x0f) * 4u) {
		h->ip_version = 4;
		h->l3 = l3;
		h->l4 = l3 + (p[l3] & 0x0f) * 4;
		h->proto = p[l3 + 9];
		h->frag = (p[l3 + 6] & 0x3f) != 0 || p[l3 + 7] != 0;
	} else if (ethertype == EMU_ETH_P_IPV6 && len >= l3 + 40 && (p[l3] >> 4) == 6) {
		h->ip_version = 6;
		h->l3 = l3;
		h->l4 = l3 + 40;
		h->proto = p[l3 + 6];
	}
}
