/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_CABLE_VXLAN_H_
#define _REFNIC_EMU_CABLE_VXLAN_H_

/*
 * The VXLAN cable's wire format (RFC 7348 section 5) and the checks a
 * datagram passes before its inner frame is delivered. Nothing here knows
 * the device: the fuzzer calls these as the cable does.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REFNIC_VXLAN_PORT		4789	/* IANA's */
#define REFNIC_VXLAN_HLEN		8
#define REFNIC_VXLAN_FLAG_I		0x08	/* a valid VNI follows */
#define REFNIC_VXLAN_VNI_MAX		0xffffffu
/* Outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8: inner MTU = link MTU - 50. */
#define REFNIC_VXLAN_OVERHEAD		50
/* RFC 7348: the source port from a hash of the inner frame, in 49152-65535. */
#define REFNIC_VXLAN_SPORT_BASE		49152
#define REFNIC_VXLAN_INNER_MIN		14	/* an Ethernet header */

struct refnic_vxlan_hdr {
	uint8_t flags;		/* REFNIC_VXLAN_FLAG_I, nothing else */
	uint8_t rsvd0[3];
	uint8_t vni[3];		/* network order */
	uint8_t rsvd1;
};
_Static_assert(sizeof(struct refnic_vxlan_hdr) == REFNIC_VXLAN_HLEN, "RFC 7348 header");

/* Why a datagram was refused; one per counter of refnic_hw_stats. */
enum refnic_vxlan_verdict {
	REFNIC_VXLAN_OK,
	REFNIC_VXLAN_TRUNCATED,		/* cable_rx_truncated */
	REFNIC_VXLAN_BAD_HEADER,	/* cable_rx_bad_header */
	REFNIC_VXLAN_BAD_VNI,		/* cable_rx_bad_vni */
	REFNIC_VXLAN_OVERSIZE,		/* cable_rx_oversize */
};

/* ADDR[:PORT]: an IPv4 address, or an IPv6 one in brackets; port 1-65535. */
bool refnic_emu_cable_vxlan_addr_valid(const char *s);

static inline void
refnic_emu_cable_vxlan_hdr_init(struct refnic_vxlan_hdr *h, uint32_t vni)
{
	*h = (struct refnic_vxlan_hdr){ .flags = REFNIC_VXLAN_FLAG_I };
	h->vni[0] = vni >> 16;
	h->vni[1] = vni >> 8;
	h->vni[2] = vni;
}

/*
 * A datagram's payload of len bytes (cut: the socket had more than the
 * buffer took). Strict as the Linux kernel is without extensions: any
 * reserved bit set refuses it. The inner frame's upper bound is the
 * largest the device takes (max_inner); its MTU is the port's to apply.
 */
static inline enum refnic_vxlan_verdict
refnic_emu_cable_vxlan_check(const uint8_t *d, size_t len, bool cut, uint32_t vni, size_t max_inner)
{
	const struct refnic_vxlan_hdr *h = (const struct refnic_vxlan_hdr *)d;

	if (len < REFNIC_VXLAN_HLEN + REFNIC_VXLAN_INNER_MIN)
		return REFNIC_VXLAN_TRUNCATED;
	if (h->flags != REFNIC_VXLAN_FLAG_I || h->rsvd0[0] != 0 || h->rsvd0[1] != 0 ||
	    h->rsvd0[2] != 0 || h->rsvd1 != 0)
		return REFNIC_VXLAN_BAD_HEADER;
	if (((uint32_t)h->vni[0] << 16 | (uint32_t)h->vni[1] << 8 | h->vni[2]) != vni)
		return REFNIC_VXLAN_BAD_VNI;
	if (cut || len - REFNIC_VXLAN_HLEN > max_inner)
		return REFNIC_VXLAN_OVERSIZE;
	return REFNIC_VXLAN_OK;
}

#endif /* _REFNIC_EMU_CABLE_VXLAN_H_ */
