/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * libFuzzer: a VXLAN cable's socket takes whatever the network sends. Port V
 * is cable=vxlan:127.0.0.1:B with vxlan_local=127.0.0.1:A; each input is one
 * datagram (its first byte picks the source: the remote 127.0.0.1 or a
 * stranger, 127.0.0.2), sent to A from a UDP socket, then a well-formed
 * datagram carrying a marker frame. V's engine decapsulates both, as from
 * any peer. Nothing may crash (ASan, UBSan); the input is counted exactly
 * once, delivered or refused, and delivered only if it passes the checks
 * (refnic_emu_cable_vxlan_check() and the source), as its own bytes; the marker always
 * arrives after it (abort otherwise).
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "refnic_emu_cable_vxlan.h"
#include "refnic_hw.h"

#define FZ_V		"net_refnic_fzv"
#define FZ_VNI		4242
#define FZ_RING		256
#define FZ_WAIT_MS	2000		/* for the marker */
#define FZ_MARK_LEN	77
#define FZ_MAX_DGRAM	(REFNIC_VXLAN_HLEN + REFNIC_MAX_FRAME_LEN + 64)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rte_mempool *pool;
static uint16_t port_v;
static int from_remote = -1, from_stranger = -1;
static struct sockaddr_in to_v;

/* Every way the port accounts for a datagram: taken or refused. */
static const char *const fates[] = {
	"rx_good_packets", "cable_rx_foreign", "cable_rx_truncated", "cable_rx_bad_header",
	"cable_rx_bad_vni", "cable_rx_oversize", "cable_rx_dropped", "rx_oversize",
	"rx_filtered", "rx_no_buffer",
};

static uint64_t fate_ids[RTE_DIM(fates)];

/* One read of them all: each read of device counters is an admin command. */
static uint64_t
accounted(void)
{
	uint64_t v[RTE_DIM(fates)], sum = 0;
	unsigned int i;

	if (rte_eth_xstats_get_by_id(port_v, fate_ids, v, RTE_DIM(fates)) != RTE_DIM(fates))
		abort();
	for (i = 0; i < RTE_DIM(fates); i++)
		sum += v[i];
	return sum;
}

static int
udp_from(const char *addr)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	inet_pton(AF_INET, addr, &sin.sin_addr);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0)
		abort();
	return fd;
}

/* Take what V received until the marker; abort on what it must not take. */
static void
receive_until_marker(const uint8_t *inner, size_t inner_len, bool may_deliver)
{
	uint64_t deadline = rte_get_tsc_cycles() + FZ_WAIT_MS * rte_get_tsc_hz() / 1000;
	struct rte_mbuf *rx[32];
	bool marker = false;
	uint16_t n, i;

	while (!marker) {
		if (rte_get_tsc_cycles() > deadline)
			abort();	/* the marker was lost: the cable stalled */
		n = rte_eth_rx_burst(port_v, 0, rx, RTE_DIM(rx));
		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = rx[i];

			if (marker)
				abort();	/* nothing after the marker */
			if (m->pkt_len == FZ_MARK_LEN && m->nb_segs == 1 &&
			    rte_pktmbuf_mtod(m, uint8_t *)[FZ_MARK_LEN - 1] == 0xa5) {
				marker = true;
				continue;
			}
			/* Anything else is the input's inner frame, as sent. */
			if (!may_deliver || m->pkt_len != inner_len || m->nb_segs != 1 ||
			    memcmp(rte_pktmbuf_mtod(m, void *), inner, inner_len) != 0)
				abort();
			may_deliver = false;	/* once */
		}
		rte_pktmbuf_free_bulk(rx, n);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t marker[REFNIC_VXLAN_HLEN + FZ_MARK_LEN];
	uint64_t before;
	bool stranger, ok;

	if (size < 1 || size - 1 > FZ_MAX_DGRAM)
		return -1;
	stranger = data[0] & 1;
	data++;
	size--;
	before = accounted();
	if (sendto(stranger ? from_stranger : from_remote, data, size, 0,
		   (struct sockaddr *)&to_v, sizeof(to_v)) != (ssize_t)size)
		abort();
	memset(marker, 0, sizeof(marker));
	refnic_emu_cable_vxlan_hdr_init((struct refnic_vxlan_hdr *)marker, FZ_VNI);
	memset(marker + REFNIC_VXLAN_HLEN, 0xff, 6);	/* broadcast */
	marker[sizeof(marker) - 1] = 0xa5;
	if (sendto(from_remote, marker, sizeof(marker), 0, (struct sockaddr *)&to_v,
		   sizeof(to_v)) != (ssize_t)sizeof(marker))
		abort();
	ok = !stranger && refnic_emu_cable_vxlan_check(data, size, false, FZ_VNI,
							REFNIC_MAX_FRAME_LEN) == REFNIC_VXLAN_OK;
	receive_until_marker(data + REFNIC_VXLAN_HLEN, ok ? size - REFNIC_VXLAN_HLEN : 0, ok);
	/* The input and the marker, each counted once: no more, no less. */
	if (accounted() - before != 2)
		abort();
	return 0;
}

/*
 * At exit the port goes, as an application's would: its cable's memory is
 * malloc'ed and pointed at only from DPDK's memory, which LeakSanitizer
 * does not scan; left in place it was found or called lost as the engine
 * thread's stack happened to hold it (a loaded CI run reported it lost).
 */
static void
port_remove(void)
{
	rte_eth_dev_stop(port_v);
	rte_vdev_uninit(FZ_V);
}

int
LLVMFuzzerInitialize(int *argc __rte_unused, char ***argv)
{
	char *eal[] = { (*argv)[0], "--no-huge", "-m", "512", "--no-pci", "--no-shconf",
			"--no-telemetry", "-l", "0", "--log-level=*:emerg", NULL };
	struct rte_eth_conf conf = { .intr_conf = { .lsc = 0 } };
	/* Ports of this process's own: fuzzers of several runs may share lo. */
	uint16_t port_a = 20000 + getpid() % 20000, port_b = port_a + 20000;
	char args[160];
	unsigned int i;

	/* Also what links the PMD in: nothing else here names its code. */
	if (!refnic_emu_cable_vxlan_addr_valid("127.0.0.1:4789") ||
	    rte_eal_init(RTE_DIM(eal) - 1, eal) < 0)
		abort();
	pool = rte_pktmbuf_pool_create("fuzz", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	snprintf(args, sizeof(args), "cable=vxlan:127.0.0.1:%u,vxlan_local=127.0.0.1:%u,"
		 "vxlan_vni=%u,profile=ideal,itr=off,admin_latency_pct=0,admin_poll=exp:1:20",
		 port_b, port_a, FZ_VNI);
	if (pool == NULL || rte_vdev_init(FZ_V, args) != 0) {
		fprintf(stderr, "cannot create %s,%s\n", FZ_V, args);
		abort();
	}
	if (rte_eth_dev_get_port_by_name(FZ_V, &port_v) != 0 ||
	    rte_eth_dev_configure(port_v, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port_v, 0, FZ_RING, SOCKET_ID_ANY, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup(port_v, 0, FZ_RING, SOCKET_ID_ANY, NULL) != 0 ||
	    rte_eth_dev_start(port_v) != 0 || rte_eth_promiscuous_enable(port_v) != 0 ||
	    atexit(port_remove) != 0)
		abort();
	for (i = 0; i < RTE_DIM(fates); i++)
		if (rte_eth_xstats_get_id_by_name(port_v, fates[i], &fate_ids[i]) != 0)
			abort();
	from_remote = udp_from("127.0.0.1");
	from_stranger = udp_from("127.0.0.2");
	to_v = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons(port_a) };
	inet_pton(AF_INET, "127.0.0.1", &to_v.sin_addr);
	return 0;
}
