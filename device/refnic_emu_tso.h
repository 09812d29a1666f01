/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_TSO_H_
#define _REFNIC_EMU_TSO_H_

/*
 * TCP segmentation (refnic_emu_tso.c, REFNIC_TXD_TSO). start() checks the
 * packet and takes its headers; each next() builds the following frame in
 * the thread's TX scratch, which holds it until the next call.
 */

#include <stdbool.h>
#include <stdint.h>

#include "refnic_hw.h"

struct refnic_frame;

#define REFNIC_EMU_TSO_HDR_MAX	(REFNIC_TXD_L2_LEN_MASK + 4 + \
				 (UINT16_MAX >> REFNIC_TXD_L3_LEN_SHIFT) + 60)
struct refnic_emu_tso {
	const struct refnic_frame *f;
	uint8_t hdr[REFNIC_EMU_TSO_HDR_MAX];	/* VLAN tag inserted if asked */
	uint32_t hdr_len;			/* of hdr */
	uint32_t l3, l4;			/* offsets in hdr */
	uint32_t payload;			/* bytes to cut */
	uint32_t off;				/* of them, sent */
	uint16_t seg, seg_off;			/* where the next payload byte is */
	uint16_t index, nb_frames;
	uint32_t seq;
	uint16_t ip_id;
	uint8_t tcp_flags;
	bool ipv4;
};
bool refnic_emu_tso_start(struct refnic_emu_tso *t, const struct refnic_frame *f);
bool refnic_emu_tso_next(struct refnic_emu_tso *t, struct refnic_frame *out);

#endif /* _REFNIC_EMU_TSO_H_ */
