/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * refnic-fwd: a testpmd-style forwarder for any ethdev.
 *
 * This file: options, ports, streams over lcores, and the main lcore's loop
 * (stats lines, duration, signals). The bursts are in fwd_modes.c, the
 * counters in stats.c.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "app_common.h"
#include "fwd.h"

#define EXIT_USAGE		2
#define DEFAULT_BURST		32
#define DEFAULT_DESC		1024
#define MIN_MBUFS		8192
#define MBUF_CACHE		256
#define LINK_WAIT_MS		10000
#define MAX_DURATION_S		(366 * 24 * 3600)

struct fwd_config fwd_cfg = {
	.mode = FWD_IO,
	.burst = DEFAULT_BURST,
	.nb_rxd = DEFAULT_DESC,
	.nb_txd = DEFAULT_DESC,
	.nb_rxq = 1,
	.nb_txq = 1,
	.pkt_size = 64,
	.stats_period_s = 1,
};
struct fwd_port fwd_ports[RTE_MAX_ETHPORTS];
FILE *fwd_out;

static const char *prog = "refnic-fwd";

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [EAL options] -- [options]\n"
		"\n"
		"Forwards frames between pairs of ports, as dpdk-testpmd: 0 <-> 1, 2 <-> 3, ...\n"
		"(an odd last port forwards to itself), on every port EAL probed. The main\n"
		"lcore prints stats; the other lcores forward (at least one: -l 0,1).\n"
		"\n"
		"  --mode MODE            io (default), mac, macswap, txonly or rxonly:\n"
		"                           io       forward unchanged\n"
		"                           mac      source address := TX port's, destination\n"
		"                                    := its peer's (--eth-peer)\n"
		"                           macswap  swap source and destination addresses\n"
		"                           txonly   send generated UDP/IPv4 frames; drop what\n"
		"                                    arrives\n"
		"                           rxonly   drop what arrives\n"
		"  --port-mode PORT,MODE  PORT's RX queues work in MODE instead (repeatable);\n"
		"                         e.g. --mode rxonly --port-mode 0,txonly\n"
		"  --eth-peer PORT,MAC    destination address of the frames PORT sends in mac\n"
		"                         and txonly modes (default 02:00:00:00:00:PORT)\n"
		"  --pkt-size N           generated frames: N bytes without FCS, %u to %u\n"
		"                         (default 64, i.e. 68 on the wire)\n"
		"  --count N              txonly: each port sends N frames, then stops sending\n"
		"                         (default 0: no limit)\n"
		"  --tx-first             io, mac, macswap: each stream sends one burst of\n"
		"                         generated frames first, to start a loop between ports\n"
		"  --burst N              frames per RX/TX burst, 1 to %u (default %u)\n"
		"  --rxq N, --txq N       RX/TX queues per port, 1 to %u (default 1); frames\n"
		"                         received on queue q leave on queue q %% txq\n"
		"  --rxd N, --txd N       descriptors per RX/TX queue, 1 to 32768 (default %u;\n"
		"                         the port rounds to its limits)\n"
		"  --mbufs N              mbufs in the pool (default: what the rings and bursts\n"
		"                         can hold, at least %u)\n"
		"  --duration S           stop after S seconds (default 0: at SIGINT or SIGTERM)\n"
		"  --stats-period S       a stats line every S seconds (default 1; 0: none)\n"
		"  --print-headers N      print the addresses, ethertype and length of the first\n"
		"                         N frames each RX queue receives\n"
		"  --wait poll|intr       busy poll (default), or, as l3fwd-power, sleep on Rx\n"
		"                         interrupts when an lcore finds nothing to do\n"
		"  --json                 at the end, print a JSON summary on stdout; everything\n"
		"                         else goes to stderr\n"
		"  --help                 print this and exit\n"
		"\n"
		"Rates come from the ports' own counters. Gbps counts 24 bytes per frame beside\n"
		"its own (preamble 8, FCS 4, inter-frame gap 12), as line rate does.\n"
		"Exit status: 0 done (also after SIGINT/SIGTERM), 1 EAL or port failure,\n"
		"2 bad arguments.\n",
		prog, FWD_MIN_PKT_SIZE, FWD_MAX_PKT_SIZE, FWD_MAX_BURST, DEFAULT_BURST,
		RTE_MAX_QUEUES_PER_PORT, DEFAULT_DESC, MIN_MBUFS);
}

/* EAL's --help prints its options, then these. */
static void
usage_hook(const char *prgname __rte_unused)
{
	usage(stdout);
}

enum {
	OPT_MODE = 256,
	OPT_PORT_MODE,
	OPT_ETH_PEER,
	OPT_PKT_SIZE,
	OPT_COUNT,
	OPT_TX_FIRST,
	OPT_BURST,
	OPT_RXQ,
	OPT_TXQ,
	OPT_RXD,
	OPT_TXD,
	OPT_MBUFS,
	OPT_DURATION,
	OPT_STATS_PERIOD,
	OPT_PRINT_HEADERS,
	OPT_WAIT,
	OPT_JSON,
	OPT_HELP,
};

static const struct option long_opts[] = {
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "port-mode", required_argument, NULL, OPT_PORT_MODE },
	{ "eth-peer", required_argument, NULL, OPT_ETH_PEER },
	{ "pkt-size", required_argument, NULL, OPT_PKT_SIZE },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "tx-first", no_argument, NULL, OPT_TX_FIRST },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "rxq", required_argument, NULL, OPT_RXQ },
	{ "txq", required_argument, NULL, OPT_TXQ },
	{ "rxd", required_argument, NULL, OPT_RXD },
	{ "txd", required_argument, NULL, OPT_TXD },
	{ "mbufs", required_argument, NULL, OPT_MBUFS },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "stats-period", required_argument, NULL, OPT_STATS_PERIOD },
	{ "print-headers", required_argument, NULL, OPT_PRINT_HEADERS },
	{ "wait", required_argument, NULL, OPT_WAIT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static int
parse_mode(const char *what, const char *s, enum fwd_mode *mode)
{
	int m = fwd_mode_parse(s);

	if (m < 0) {
		fprintf(stderr, "%s: %s: '%s' is not io, mac, macswap, txonly or rxonly\n",
			prog, what, s);
		return -EINVAL;
	}
	*mode = m;
	return 0;
}

/* "PORT,REST": the port number, and where REST starts. */
static int
parse_port_prefix(const char *what, const char *s, uint16_t *port, const char **rest)
{
	char buf[16];
	const char *comma = strchr(s, ',');
	uint64_t v;

	if (comma == NULL || (size_t)(comma - s) >= sizeof(buf)) {
		fprintf(stderr, "%s: %s: '%s' is not PORT,VALUE\n", prog, what, s);
		return -EINVAL;
	}
	memcpy(buf, s, comma - s);
	buf[comma - s] = '\0';
	if (app_parse_u64(prog, what, buf, 0, RTE_MAX_ETHPORTS - 1, &v) != 0)
		return -EINVAL;
	*port = v;
	*rest = comma + 1;
	return 0;
}

static int
parse_u16(const char *what, const char *s, uint64_t min, uint64_t max, uint16_t *out)
{
	uint64_t v;

	if (app_parse_u64(prog, what, s, min, max, &v) != 0)
		return -EINVAL;
	*out = v;
	return 0;
}

/* 0: go on; 1: --help printed; negative: bad arguments (said why). */
static int
parse_args(int argc, char **argv)
{
	enum fwd_mode mode;
	uint16_t port;
	const char *rest;
	uint64_t v;
	int opt, ret = 0;

	for (port = 0; port < RTE_MAX_ETHPORTS; port++)
		fwd_cfg.port_mode[port] = -1;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		switch (opt) {
		case OPT_MODE:
			ret = parse_mode("--mode", optarg, &fwd_cfg.mode);
			break;
		case OPT_PORT_MODE:
			ret = parse_port_prefix("--port-mode", optarg, &port, &rest);
			if (ret == 0)
				ret = parse_mode("--port-mode", rest, &mode);
			if (ret == 0)
				fwd_cfg.port_mode[port] = mode;
			break;
		case OPT_ETH_PEER:
			ret = parse_port_prefix("--eth-peer", optarg, &port, &rest);
			if (ret != 0)
				break;
			if (rte_ether_unformat_addr(rest, &fwd_cfg.peer_mac[port]) != 0) {
				fprintf(stderr, "%s: --eth-peer: '%s' is not a MAC address\n",
					prog, rest);
				ret = -EINVAL;
				break;
			}
			fwd_cfg.peer_set[port] = true;
			break;
		case OPT_PKT_SIZE:
			ret = parse_u16("--pkt-size", optarg, FWD_MIN_PKT_SIZE, FWD_MAX_PKT_SIZE,
					&fwd_cfg.pkt_size);
			break;
		case OPT_COUNT:
			ret = app_parse_u64(prog, "--count", optarg, 0, UINT64_MAX - 1,
					    &fwd_cfg.count);
			break;
		case OPT_TX_FIRST:
			fwd_cfg.tx_first = true;
			break;
		case OPT_BURST:
			ret = parse_u16("--burst", optarg, 1, FWD_MAX_BURST, &fwd_cfg.burst);
			break;
		case OPT_RXQ:
			ret = parse_u16("--rxq", optarg, 1, RTE_MAX_QUEUES_PER_PORT,
					&fwd_cfg.nb_rxq);
			break;
		case OPT_TXQ:
			ret = parse_u16("--txq", optarg, 1, RTE_MAX_QUEUES_PER_PORT,
					&fwd_cfg.nb_txq);
			break;
		case OPT_RXD:
			ret = parse_u16("--rxd", optarg, 1, 32768, &fwd_cfg.nb_rxd);
			break;
		case OPT_TXD:
			ret = parse_u16("--txd", optarg, 1, 32768, &fwd_cfg.nb_txd);
			break;
		case OPT_MBUFS:
			ret = app_parse_u64(prog, "--mbufs", optarg, 1, UINT32_MAX / 2, &v);
			fwd_cfg.nb_mbufs = v;
			break;
		case OPT_DURATION:
			ret = app_parse_u64(prog, "--duration", optarg, 0, MAX_DURATION_S,
					    &fwd_cfg.duration_s);
			break;
		case OPT_STATS_PERIOD:
			ret = app_parse_u64(prog, "--stats-period", optarg, 0, 3600,
					    &fwd_cfg.stats_period_s);
			break;
		case OPT_PRINT_HEADERS:
			ret = app_parse_u64(prog, "--print-headers", optarg, 0, UINT64_MAX - 1,
					    &fwd_cfg.print_headers);
			break;
		case OPT_WAIT:
			if (strcmp(optarg, "poll") == 0 || strcmp(optarg, "intr") == 0) {
				fwd_cfg.wait_intr = strcmp(optarg, "intr") == 0;
			} else {
				fprintf(stderr, "%s: --wait: '%s' is not poll or intr\n", prog,
					optarg);
				ret = -EINVAL;
			}
			break;
		case OPT_JSON:
			fwd_cfg.json = true;
			break;
		case OPT_HELP:
			usage(stdout);
			return 1;
		default:
			/* getopt said what it did not understand. */
			return -EINVAL;
		}
		if (ret != 0)
			return ret;
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/* Options that name ports can only be checked once EAL has probed them. */
static int
check_port_options(void)
{
	uint16_t port;

	for (port = 0; port < RTE_MAX_ETHPORTS; port++) {
		if ((fwd_cfg.port_mode[port] >= 0 || fwd_cfg.peer_set[port]) &&
		    !rte_eth_dev_is_valid_port(port)) {
			fprintf(stderr, "%s: %s names port %u, but there is no such port\n", prog,
				fwd_cfg.port_mode[port] >= 0 ? "--port-mode" : "--eth-peer", port);
			return -EINVAL;
		}
	}
	return 0;
}

static bool
mode_forwards(enum fwd_mode mode)
{
	return mode == FWD_IO || mode == FWD_MAC || mode == FWD_MACSWAP;
}

/* Pairs as testpmd: 0 <-> 1, 2 <-> 3, ...; an odd last port to itself. */
static uint16_t
init_ports(void)
{
	uint16_t port, nb = 0, prev = RTE_MAX_ETHPORTS;
	int ret;

	RTE_ETH_FOREACH_DEV(port) {
		struct fwd_port *p = &fwd_ports[port];

		p->used = true;
		p->mode = fwd_cfg.port_mode[port] >= 0 ?
			(enum fwd_mode)fwd_cfg.port_mode[port] : fwd_cfg.mode;
		ret = rte_eth_macaddr_get(port, &p->mac);
		if (ret != 0)
			memset(&p->mac, 0, sizeof(p->mac));
		if (fwd_cfg.peer_set[port]) {
			p->peer_mac = fwd_cfg.peer_mac[port];
		} else {
			memset(&p->peer_mac, 0, sizeof(p->peer_mac));
			p->peer_mac.addr_bytes[0] = 0x02;
			p->peer_mac.addr_bytes[4] = port >> 8;
			p->peer_mac.addr_bytes[5] = port & 0xff;
		}
		if (rte_eth_dev_get_name_by_port(port, p->name) != 0)
			snprintf(p->name, sizeof(p->name), "port%u", port);
		if (nb % 2 == 0) {
			p->peer = port;
			prev = port;
		} else {
			p->peer = prev;
			fwd_ports[prev].peer = port;
		}
		nb++;
	}
	return nb;
}

/* Full rings, per-lcore caches, two bursts per stream (received; generated, kept). */
static uint64_t
mbufs_needed(uint16_t nb_ports, unsigned int nb_fwd_lcores, unsigned int nb_streams)
{
	return (uint64_t)nb_ports *
		((uint64_t)fwd_cfg.nb_rxq * fwd_cfg.nb_rxd +
		 (uint64_t)fwd_cfg.nb_txq * fwd_cfg.nb_txd) +
		(uint64_t)(nb_fwd_lcores + 1) * MBUF_CACHE +
		(uint64_t)nb_streams * 2 * fwd_cfg.burst;
}

static struct rte_mempool *
create_pool(uint32_t n)
{
	uint16_t room = RTE_MBUF_DEFAULT_BUF_SIZE;
	struct rte_mempool *mp;

	/* A generated frame fits in one mbuf, with room for the FCS and two VLAN tags. */
	if (fwd_cfg.pkt_size + RTE_ETHER_CRC_LEN + 2 * RTE_VLAN_HLEN > RTE_MBUF_DEFAULT_DATAROOM)
		room = RTE_PKTMBUF_HEADROOM + fwd_cfg.pkt_size + RTE_ETHER_CRC_LEN +
			2 * RTE_VLAN_HLEN;
	mp = rte_pktmbuf_pool_create("refnic_fwd", n, RTE_MIN((uint32_t)MBUF_CACHE, n / 4), 0, room,
				     rte_socket_id());
	if (mp == NULL)
		fprintf(stderr, "%s: cannot create a pool of %u mbufs of %u bytes: %s\n",
			prog, n, room, rte_strerror(rte_errno));
	return mp;
}

/*
 * Streams: one per port and RX queue, spread over the forwarding lcores.
 * Streams that send on the same TX queue (a txonly port whose peer forwards
 * to it, more RX than TX queues) go to the same lcore: TX queues are not
 * thread safe.
 */
static struct fwd_lcore *
setup_streams(uint16_t nb_ports, unsigned int nb_fwd, struct rte_mempool *mp,
	      unsigned int *nb_lcores_used)
{
	uint16_t nq = fwd_cfg.nb_rxq;
	unsigned int nb = nb_ports * nq, i, j, nb_units = 0, lcore_id, l;
	struct fwd_stream **streams = calloc(nb, sizeof(*streams));
	unsigned int *unit = calloc(nb, sizeof(*unit));
	struct fwd_lcore *lcores = calloc(nb_fwd, sizeof(*lcores));
	uint16_t q, port;

	if (streams == NULL || unit == NULL || lcores == NULL)
		goto fail;
	i = 0;
	for (q = 0; q < nq; q++) {
		RTE_ETH_FOREACH_DEV(port) {
			const struct fwd_port *p = &fwd_ports[port];
			struct fwd_stream *s = rte_zmalloc("fwd_stream", sizeof(*s), 0);

			if (s == NULL)
				goto fail;
			streams[i] = s;
			s->rx_port = port;
			s->rx_queue = q;
			s->tx_port = mode_forwards(p->mode) ? p->peer : port;
			s->tx_queue = q % fwd_cfg.nb_txq;
			s->mode = p->mode;
			s->pool = mp;
			fwd_stream_init(s);
			/* --count spread over the port's queues, the remainder on the first. */
			if (s->mode == FWD_TXONLY && fwd_cfg.count != 0)
				s->tx_left = fwd_cfg.count / nq + (q < fwd_cfg.count % nq);
			unit[i] = nb_units;
			for (j = 0; j < i && s->mode != FWD_RXONLY; j++) {
				if (streams[j]->mode != FWD_RXONLY &&
				    streams[j]->tx_port == s->tx_port &&
				    streams[j]->tx_queue == s->tx_queue) {
					unit[i] = unit[j];
					break;
				}
			}
			if (unit[i] == nb_units)
				nb_units++;
			i++;
		}
	}
	*nb_lcores_used = RTE_MIN(nb_fwd, nb_units);
	for (l = 0; l < *nb_lcores_used; l++) {
		lcores[l].streams = calloc(nb, sizeof(*lcores[l].streams));
		if (lcores[l].streams == NULL)
			goto fail;
	}
	for (i = 0; i < nb; i++) {
		struct fwd_lcore *lc = &lcores[unit[i] % *nb_lcores_used];

		lc->streams[lc->nb_streams++] = streams[i];
	}
	l = 0;
	RTE_LCORE_FOREACH_WORKER(lcore_id) {
		if (l == *nb_lcores_used)
			break;
		lcores[l++].lcore_id = lcore_id;
	}
	free(streams);
	free(unit);
	return lcores;
fail:
	fprintf(stderr, "%s: out of memory for %u streams\n", prog, nb);
	for (i = 0; streams != NULL && i < nb; i++)
		rte_free(streams[i]);
	for (l = 0; lcores != NULL && l < nb_fwd; l++)
		free(lcores[l].streams);
	free(streams);
	free(unit);
	free(lcores);
	return NULL;
}

static void
free_lcores(struct fwd_lcore *lcores, unsigned int nb_lcores)
{
	unsigned int l;
	uint16_t i;

	if (lcores == NULL)
		return;
	for (l = 0; l < nb_lcores; l++) {
		for (i = 0; i < lcores[l].nb_streams; i++)
			rte_free(lcores[l].streams[i]);
		free(lcores[l].streams);
	}
	free(lcores);
}

static void
print_setup(uint16_t nb_ports, const struct fwd_lcore *lcores, unsigned int nb_lcores)
{
	char mac[RTE_ETHER_ADDR_FMT_SIZE], peer[RTE_ETHER_ADDR_FMT_SIZE];
	struct rte_eth_rxq_info rxq;
	struct rte_eth_txq_info txq;
	struct rte_eth_burst_mode mode;
	unsigned int l;
	uint16_t port, i;

	fprintf(fwd_out, "%s: %s mode, %u port%s, %u forwarding lcore%s, burst %u, wait %s\n",
		prog, fwd_mode_name(fwd_cfg.mode), nb_ports, nb_ports == 1 ? "" : "s",
		nb_lcores, nb_lcores == 1 ? "" : "s", fwd_cfg.burst,
		fwd_cfg.wait_intr ? "intr" : "poll");
	RTE_ETH_FOREACH_DEV(port) {
		const struct fwd_port *p = &fwd_ports[port];

		rte_ether_format_addr(mac, sizeof(mac), &p->mac);
		rte_ether_format_addr(peer, sizeof(peer), &p->peer_mac);
		fprintf(fwd_out, "port %u: %s %s, %s", port, p->name, mac, fwd_mode_name(p->mode));
		if (mode_forwards(p->mode))
			fprintf(fwd_out, " to port %u", p->peer);
		fprintf(fwd_out, ", peer address %s", peer);
		/* What the port made of --rxd/--txd, where it says. */
		if (rte_eth_rx_queue_info_get(port, 0, &rxq) == 0 &&
		    rte_eth_tx_queue_info_get(port, 0, &txq) == 0)
			fprintf(fwd_out, ", %u RX and %u TX descriptors per queue",
				rxq.nb_desc, txq.nb_desc);
		/* The TX path the PMD chose (refnic: WC push or doorbell+fetch). */
		if (rte_eth_tx_burst_mode_get(port, 0, &mode) == 0)
			fprintf(fwd_out, ", TX %s", mode.info);
		fprintf(fwd_out, "\n");
	}
	for (l = 0; l < nb_lcores; l++) {
		fprintf(fwd_out, "lcore %u:", lcores[l].lcore_id);
		for (i = 0; i < lcores[l].nb_streams; i++) {
			const struct fwd_stream *s = lcores[l].streams[i];

			fprintf(fwd_out, "%s port %u rxq %u", i ? "," : "", s->rx_port,
				s->rx_queue);
			if (s->mode != FWD_RXONLY)
				fprintf(fwd_out, " -> port %u txq %u", s->tx_port, s->tx_queue);
		}
		fprintf(fwd_out, "\n");
	}
	fflush(fwd_out);
}

static void
sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	/* A signal cuts it short, which is what the caller wants. */
	nanosleep(&ts, NULL);
}

/* Stats lines until the duration is up or a signal came; returns the seconds forwarded. */
static double
run(const char **stopped_by)
{
	uint64_t hz = rte_get_timer_hz(), start = rte_get_timer_cycles(), now;
	uint64_t period = fwd_cfg.stats_period_s * hz, duration = fwd_cfg.duration_s * hz;
	uint64_t next = start + period, periods = 0;

	*stopped_by = "signal";
	while (!app_quit) {
		now = rte_get_timer_cycles();
		if (period != 0 && now >= next) {
			/* If this thread was kept from running, one line covers the gap. */
			periods = (now - start) / period;
			stats_period(periods * fwd_cfg.stats_period_s);
			next = start + (periods + 1) * period;
		}
		if (duration != 0 && now - start >= duration) {
			*stopped_by = "duration";
			break;
		}
		sleep_ms(10);
	}
	return (double)(rte_get_timer_cycles() - start) / hz;
}

int
main(int argc, char **argv)
{
	struct app_port_conf port_conf;
	struct fwd_lcore *lcores = NULL;
	struct rte_mempool *mp = NULL;
	unsigned int nb_fwd, nb_lcores = 0, l;
	const char *stopped_by;
	uint64_t need;
	uint16_t nb_ports, port;
	double elapsed;
	int ret, status = 1;

	if (argc > 0)
		prog = argv[0];
	rte_set_application_usage_hook(usage_hook);
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "%s: cannot initialise EAL: %s\n", prog, rte_strerror(rte_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	app_signals_install();
	setvbuf(stdout, NULL, _IOLBF, 0);

	ret = parse_args(argc, argv);
	if (ret == 0)
		ret = check_port_options();
	if (ret != 0) {
		if (ret < 0) {
			usage(stderr);
			status = EXIT_USAGE;
		} else {
			status = 0;
		}
		goto out;
	}
	fwd_out = fwd_cfg.json ? stderr : stdout;

	nb_ports = init_ports();
	if (nb_ports == 0) {
		fprintf(stderr, "%s: no ports: add some with --vdev (or -a for a PCI device)\n",
			prog);
		goto out;
	}
	nb_fwd = rte_lcore_count() - 1;
	if (nb_fwd == 0) {
		fprintf(stderr, "%s: needs two lcores or more (e.g. -l 0,1): the main lcore "
			"prints stats, the others forward (see --help)\n", prog);
		status = EXIT_USAGE;
		goto out;
	}
	need = mbufs_needed(nb_ports, nb_fwd, nb_ports * fwd_cfg.nb_rxq);
	if (fwd_cfg.nb_mbufs != 0 && fwd_cfg.nb_mbufs < need) {
		fprintf(stderr, "%s: --mbufs %u is fewer than the %" PRIu64 " the rings, caches "
			"and bursts can hold: forwarding would stall (see --help)\n", prog,
			fwd_cfg.nb_mbufs, need);
		status = EXIT_USAGE;
		goto out;
	}
	if (need > UINT32_MAX) {
		fprintf(stderr, "%s: the rings, caches and bursts would hold %" PRIu64
			" mbufs: too many for one pool\n", prog, need);
		status = EXIT_USAGE;
		goto out;
	}
	mp = create_pool(fwd_cfg.nb_mbufs != 0 ? fwd_cfg.nb_mbufs :
			 RTE_MAX((uint32_t)need, (uint32_t)MIN_MBUFS));
	if (mp == NULL)
		goto out;
	port_conf = (struct app_port_conf){
		.nb_rxq = fwd_cfg.nb_rxq,
		.nb_txq = fwd_cfg.nb_txq,
		.nb_rxd = fwd_cfg.nb_rxd,
		.nb_txd = fwd_cfg.nb_txd,
		/* mac mode sends to peer addresses nobody owns; every port must take them. */
		.promisc = true,
		.mtu = fwd_cfg.pkt_size > RTE_ETHER_MAX_LEN - RTE_ETHER_CRC_LEN ?
			fwd_cfg.pkt_size - RTE_ETHER_HDR_LEN : 0,
		.rx_intr = fwd_cfg.wait_intr,
	};
	RTE_ETH_FOREACH_DEV(port) {
		if (app_port_start(port, &port_conf, mp) != 0)
			goto out;
		if (fwd_cfg.wait_intr && !app_rx_intr_usable(prog, port, 0))
			goto out;
	}
	lcores = setup_streams(nb_ports, nb_fwd, mp, &nb_lcores);
	if (lcores == NULL)
		goto out;
	print_setup(nb_ports, lcores, nb_lcores);
	RTE_ETH_FOREACH_DEV(port) {
		if (!app_wait_link(port, LINK_WAIT_MS) && !app_quit)
			fprintf(stderr, "port %u: link still down after %u ms; forwarding anyway\n",
				port, LINK_WAIT_MS);
	}

	stats_begin();
	status = 0;
	for (l = 0; l < nb_lcores; l++) {
		ret = rte_eal_remote_launch(fwd_lcore_main, &lcores[l], lcores[l].lcore_id);
		if (ret != 0) {
			fprintf(stderr, "%s: cannot launch lcore %u: %s\n", prog,
				lcores[l].lcore_id, rte_strerror(-ret));
			app_quit = 1;
			status = 1;
			break;
		}
	}
	elapsed = run(&stopped_by);
	fwd_stop_all();
	for (l = 0; l < nb_lcores; l++)
		if (rte_eal_wait_lcore(lcores[l].lcore_id) < 0)
			status = 1;	/* it said why */
	stats_end(elapsed, stopped_by, lcores, nb_lcores);
out:
	app_ports_close();
	free_lcores(lcores, nb_lcores);
	rte_mempool_free(mp);
	rte_eal_cleanup();
	return status;
}
