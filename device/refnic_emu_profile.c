/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Timing profiles: what the modelled platform charges for the things a
 * driver's design choices multiply (admin round trips, resets, descriptor
 * fetches, BAR stores). The numbers are model inputs, not measurements of
 * this machine; where each comes from:
 *
 *  - Admin latency: firmware-processed mailbox commands on current NICs
 *    complete in tens of microseconds; queue creation touches more state than
 *    a MAC update. The ENA thread (netdev, 2020-02-29, "[PATCH] ena: Speed
 *    up initialization 90x by reducing poll delays") shows commands that
 *    finish well under 1.92 ms / ~35 commands, i.e. tens of microseconds.
 *  - Reset: a device reset (not a PCIe FLR) with firmware re-init. The ENA
 *    thread's whole bring-up, reset included, took 1.92 ms once polled
 *    every 10 us, so a reset of a fraction of that: 500 us.
 *  - Descriptor fetch: one PCIe read round trip, about 1 us on current
 *    servers (the reason mlx4 BlueFlame pushes descriptors: netdev,
 *    2014-10-01, "Add pgtable API to query if write combining is available").
 *  - BAR store, bare metal: an uncached posted write behind a store fence,
 *    on the order of 100 ns of CPU time.
 *  - BAR store, VM: a trapped MMIO write is a VM exit and re-entry, on the
 *    order of 1.5 us (the lem/e1000 KVM thread is built on it:
 *    freebsd-emulation, 2012-12-27, "[RFC] proposed 'lem' patch to improve
 *    behaviour under emulation").
 *  - Push window (refnic_emu_push.c). Mapped write-combining (push_wc:
 *    ideal, baremetal; bar_wc=on), a line of L bytes goes out in
 *    ceil(L / 64) bursts of push_burst_ns each: a posted write, 100 ns as
 *    any uncached store on bare metal. In a VM the only WC mapping is one
 *    the hypervisor passes through to the guest (stores to it do not exit),
 *    so a burst costs the same 100 ns there. Uncached (vm, bar_wc=off), it
 *    goes out as L / 8 stores of bar_store_ns each (the BlueFlame thread: "every write
 *    of 64B would actually translate into 8 writes of 8 bytes"): 100 ns on
 *    bare metal, an exit under vm, whose device model traps its BAR. A
 *    pushed packet skips the descriptor fetch, so on baremetal a 64-byte
 *    frame (an 88-byte line) costs 2 x 100 ns pushed vs 100 ns + 1 us rung
 *    and fetched, and 11 x 100 ns pushed uncached (a tie at 64 B, a loss
 *    above); under vm the same line uncached is 11 exits (16.5 us) vs one
 *    (1.5 us). mlx4 measured the same orderings at smaller ratios
 *    (BlueFlame with WC 0.85 vs 1.16 us at 64 B on bare metal; without WC
 *    in a VM 1.11 vs 0.93 us at 64 B, 1.47 vs 1.00 us at 128 B): its VM
 *    passed the device through, where an uncached store costs tens of
 *    nanoseconds, not an exit. bar_wc= and profile= pick each case.
 *
 *  - Clock (1.4, refnic_emu_clock.c): the device clock counts from the
 *    TSC. ideal and vm keep its rate (a VM's guest reads the host's TSC);
 *    baremetal's oscillator runs 100 ppm fast, the tolerance IEEE 802.3
 *    gives a port's transmit clock (1000BASE-T: 125 MHz +/- 0.01%), so
 *    that PTP has a drift to correct.
 *
 * ideal and vm describe devices that may be emulated in the trapped store
 * itself (exec=inline), as QEMU's e1000 transmits inside the TDT write: the
 * model reads descriptors from guest memory directly, so no fetch delay
 * applies there; under vm the store's exit is the cost. baremetal is a bus
 * device: its fetch is a DMA round trip after the doorbell, which only an
 * engine thread (exec=thread) can model.
 */

#include <errno.h>
#include <string.h>

#include "refnic_emu_profile.h"

#define ADMIN_LATENCIES_US(identify, qcreate, qdestroy, stats, other)	\
	{								\
		[REFNIC_ADMIN_NOP] = (other),				\
		[REFNIC_ADMIN_IDENTIFY] = (identify),			\
		[REFNIC_ADMIN_GET_FEATURES] = (other),			\
		[REFNIC_ADMIN_SET_FEATURES] = (other),			\
		[REFNIC_ADMIN_SET_MAC] = (other),			\
		[REFNIC_ADMIN_SET_MTU] = (other),			\
		[REFNIC_ADMIN_SET_RX_MODE] = (other),			\
		[REFNIC_ADMIN_MAC_FILTER_ADD] = (other),		\
		[REFNIC_ADMIN_MAC_FILTER_DEL] = (other),		\
		[REFNIC_ADMIN_VLAN_FILTER_ADD] = (other),		\
		[REFNIC_ADMIN_VLAN_FILTER_DEL] = (other),		\
		[REFNIC_ADMIN_RSS_SET] = (other),			\
		[REFNIC_ADMIN_RSS_GET] = (other),			\
		[REFNIC_ADMIN_QUEUE_CREATE] = (qcreate),		\
		[REFNIC_ADMIN_QUEUE_DESTROY] = (qdestroy),		\
		[REFNIC_ADMIN_SET_MODERATION] = (other),		\
		[REFNIC_ADMIN_STATS_GET] = (stats),			\
		[REFNIC_ADMIN_STATS_CLEAR] = (other),			\
		[REFNIC_ADMIN_FW_VERSION] = (other),			\
		[REFNIC_ADMIN_LINK_GET] = (other),			\
		[REFNIC_ADMIN_MC_LIST_SET] = (other),			\
		[REFNIC_ADMIN_LINK_SET] = (other),			\
		[REFNIC_ADMIN_PUSH_CHECK] = (other),			\
		[REFNIC_ADMIN_FLOW_ADD] = (other),			\
		[REFNIC_ADMIN_FLOW_DEL] = (other),			\
		[REFNIC_ADMIN_FLOW_QUERY] = (other),			\
		[REFNIC_ADMIN_FLOW_FLUSH] = (other),			\
		[REFNIC_ADMIN_CLOCK_SET] = (other),			\
		[REFNIC_ADMIN_CLOCK_ADJUST] = (other),			\
		[REFNIC_ADMIN_TIMESYNC_CTRL] = (other),			\
	}

static const struct refnic_profile refnic_profiles[REFNIC_PROFILE_COUNT] = {
	[REFNIC_PROFILE_IDEAL] = {
		.name = "ideal",
		.admin_latency_us = ADMIN_LATENCIES_US(0, 0, 0, 0, 0),
		.trap_and_emulate = true,
		.push_wc = true,
	},
	[REFNIC_PROFILE_BAREMETAL] = {
		.name = "baremetal",
		.admin_latency_us = ADMIN_LATENCIES_US(50, 30, 20, 15, 10),
		.reset_latency_us = 500,
		.desc_fetch_ns = 1000,
		.bar_store_ns = 100,
		.push_burst_ns = 100,
		.push_wc = true,
		.clock_skew_ppb = 100000,
	},
	[REFNIC_PROFILE_VM] = {
		.name = "vm",
		.admin_latency_us = ADMIN_LATENCIES_US(50, 30, 20, 15, 10),
		.reset_latency_us = 500,
		.desc_fetch_ns = 1000,
		.bar_store_ns = 1500,
		.push_burst_ns = 100,
		.trap_and_emulate = true,
	},
};

const struct refnic_profile *
refnic_emu_profile_get(enum refnic_emu_profile id)
{
	if ((unsigned int)id >= REFNIC_PROFILE_COUNT)
		return NULL;
	return &refnic_profiles[id];
}

int
refnic_emu_profile_parse(const char *name, enum refnic_emu_profile *id)
{
	unsigned int i;

	for (i = 0; i < REFNIC_PROFILE_COUNT; i++) {
		if (strcmp(name, refnic_profiles[i].name) == 0) {
			*id = i;
			return 0;
		}
	}
	return -EINVAL;
}
