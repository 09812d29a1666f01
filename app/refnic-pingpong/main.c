/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * refnic-pingpong: round-trip latency over any ethdev, with timestamped UDP
 * probes. This file: arguments, EAL and port set-up, exit status.
 */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>

#include "app_common.h"
#include "pingpong.h"

/* Mbufs beyond what the rings hold: probes in flight, bursts, lcore cache. */
#define PP_SPARE_MBUFS 4095
#define PP_NB_DESC 512
#define PP_MAX_INFLIGHT 1024
#define PP_MIN_SIZE 64
#define PP_MAX_SIZE 1514

/* Exit statuses: 0 done, 1 could not measure, 2 bad arguments. */
#define PP_EXIT_FAIL 1
#define PP_EXIT_USAGE 2

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: " PP_PROG " [EAL options] -- [options]\n"
		"Round-trip latency over any ethdev, with timestamped UDP probes.\n"
		"  --role both|client|server\n"
		"                      both (default): client on --port, server on\n"
		"                      --server-port, one lcore; client: send probes on\n"
		"                      --port and time the replies; server: send probes\n"
		"                      back until SIGINT/SIGTERM or --duration\n"
		"  --port N            the client's port, or the server's (default 0)\n"
		"  --server-port N     role both: the server's port (default: the next)\n"
		"  --count N           samples to take (default 10000)\n"
		"  --duration S        sample for S seconds instead of a count\n"
		"  --warmup N          replies to discard first (default 1000)\n"
		"  --inflight N        probes outstanding at once, 1 to %u (default 1)\n"
		"  --size B            frame length without CRC, %u to %u (default 64)\n"
		"  --timeout-ms N      a probe unanswered by then is lost (default 100)\n"
		"  --desc N            Rx and Tx ring sizes, 64 to 4096 (default %u)\n"
		"  --link-timeout S    client: wait this long for link up (default 10)\n"
		"  --wait poll|intr    busy poll (default), or sleep on Rx interrupts\n"
		"  --one-way           also each direction's latency, from the ports' RX\n"
		"                      timestamps and clocks (both ends must offer them\n"
		"                      and share a time base); --size %u or more\n"
		"  --json              one JSON object on stdout, all else on stderr\n"
		"  --csv FILE          histogram buckets: lower_ns,upper_ns,count\n"
		"  --plot FILE.png     draw the latency distribution with gnuplot\n"
		"  -h, --help          this text\n",
		PP_MAX_INFLIGHT, PP_MIN_SIZE, PP_MAX_SIZE, PP_NB_DESC, PP_ONE_WAY_MIN_SIZE);
}

static int
bad_usage(void)
{
	usage(stderr);
	return -EINVAL;
}

static int
parse_seconds(const char *what, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || errno != 0 || !isfinite(v) || v <= 0 ||
	    v > 86400) {
		fprintf(stderr, "%s: %s: '%s' is not a number of seconds from 0 to 86400\n",
			PP_PROG, what, s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

enum {
	OPT_ROLE = 256, OPT_PORT, OPT_SERVER_PORT, OPT_COUNT, OPT_DURATION,
	OPT_WARMUP, OPT_INFLIGHT, OPT_SIZE, OPT_TIMEOUT, OPT_LINK_TIMEOUT,
	OPT_WAIT, OPT_JSON, OPT_CSV, OPT_PLOT, OPT_DESC, OPT_ONE_WAY,
};

static const struct option pp_options[] = {
	{ "role", required_argument, NULL, OPT_ROLE },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "server-port", required_argument, NULL, OPT_SERVER_PORT },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "inflight", required_argument, NULL, OPT_INFLIGHT },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "timeout-ms", required_argument, NULL, OPT_TIMEOUT },
	{ "link-timeout", required_argument, NULL, OPT_LINK_TIMEOUT },
	{ "desc", required_argument, NULL, OPT_DESC },
	{ "wait", required_argument, NULL, OPT_WAIT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "one-way", no_argument, NULL, OPT_ONE_WAY },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/*
 * Parse the application's options (after "--"). Returns 0, 1 for --help,
 * or -EINVAL after printing what was wrong and the usage.
 */
static int
parse_args(int argc, char **argv, struct pp_conf *conf, bool *server_port_set)
{
	bool count_set = false;
	uint64_t v;
	int opt;

	*conf = (struct pp_conf){
		.role = PP_ROLE_BOTH,
		.wait = PP_WAIT_POLL,
		.size = 64,
		.inflight = 1,
		.warmup = 1000,
		.count = 10000,
		.timeout_ms = 100,
		.link_timeout_s = 10,
		.nb_desc = PP_NB_DESC,
	};
	*server_port_set = false;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", pp_options, NULL)) != -1) {
		const char *a = optarg;
		int ret = 0;

		switch (opt) {
		case OPT_ROLE:
			if (strcmp(a, "both") == 0)
				conf->role = PP_ROLE_BOTH;
			else if (strcmp(a, "client") == 0)
				conf->role = PP_ROLE_CLIENT;
			else if (strcmp(a, "server") == 0)
				conf->role = PP_ROLE_SERVER;
			else {
				fprintf(stderr, "%s: --role: '%s' is not both, client or server\n",
					PP_PROG, a);
				ret = -EINVAL;
			}
			break;
		case OPT_PORT:
			ret = app_parse_u64(PP_PROG, "--port", a, 0, RTE_MAX_ETHPORTS - 1, &v);
			conf->client_port = v;
			break;
		case OPT_SERVER_PORT:
			ret = app_parse_u64(PP_PROG, "--server-port", a, 0,
					    RTE_MAX_ETHPORTS - 1, &v);
			conf->server_port = v;
			*server_port_set = true;
			break;
		case OPT_COUNT:
			ret = app_parse_u64(PP_PROG, "--count", a, 1, UINT32_MAX, &conf->count);
			count_set = true;
			break;
		case OPT_DURATION:
			ret = parse_seconds("--duration", a, &conf->duration_s);
			break;
		case OPT_WARMUP:
			ret = app_parse_u64(PP_PROG, "--warmup", a, 0, UINT32_MAX, &conf->warmup);
			break;
		case OPT_INFLIGHT:
			ret = app_parse_u64(PP_PROG, "--inflight", a, 1, PP_MAX_INFLIGHT, &v);
			conf->inflight = v;
			break;
		case OPT_SIZE:
			ret = app_parse_u64(PP_PROG, "--size", a, PP_MIN_SIZE, PP_MAX_SIZE, &v);
			conf->size = v;
			break;
		case OPT_TIMEOUT:
			ret = app_parse_u64(PP_PROG, "--timeout-ms", a, 1, 60000,
					    &conf->timeout_ms);
			break;
		case OPT_LINK_TIMEOUT:
			ret = app_parse_u64(PP_PROG, "--link-timeout", a, 0, 3600,
					    &conf->link_timeout_s);
			break;
		case OPT_DESC:
			ret = app_parse_u64(PP_PROG, "--desc", a, 64, 4096, &v);
			conf->nb_desc = v;
			break;
		case OPT_WAIT:
			if (strcmp(a, "poll") == 0)
				conf->wait = PP_WAIT_POLL;
			else if (strcmp(a, "intr") == 0)
				conf->wait = PP_WAIT_INTR;
			else {
				fprintf(stderr, "%s: --wait: '%s' is not poll or intr\n",
					PP_PROG, a);
				ret = -EINVAL;
			}
			break;
		case OPT_JSON:
			conf->json = true;
			break;
		case OPT_ONE_WAY:
			conf->one_way = true;
			break;
		case OPT_CSV:
			conf->csv_path = a;
			break;
		case OPT_PLOT:
			conf->plot_path = a;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			fprintf(stderr, "%s: unknown or incomplete option '%s'\n", PP_PROG,
				argv[optind - 1]);
			ret = -EINVAL;
			break;
		}
		if (ret != 0)
			return bad_usage();
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", PP_PROG, argv[optind]);
		return bad_usage();
	}
	if (count_set && conf->duration_s > 0) {
		fprintf(stderr, "%s: --count and --duration exclude each other\n", PP_PROG);
		return bad_usage();
	}
	if (conf->duration_s > 0)
		conf->count = 0;
	if (conf->one_way && conf->size < PP_ONE_WAY_MIN_SIZE) {
		fprintf(stderr, "%s: --one-way carries clock readings: --size %u or more\n",
			PP_PROG, PP_ONE_WAY_MIN_SIZE);
		return bad_usage();
	}
	if (conf->role == PP_ROLE_SERVER) {
		conf->server_port = conf->client_port;
		if (conf->csv_path != NULL || conf->plot_path != NULL) {
			fprintf(stderr, "%s: role server takes no samples: no --csv or --plot\n",
				PP_PROG);
			return bad_usage();
		}
	}
	return 0;
}

/* Check the ports against what EAL probed; pick role both's server port. */
static int
check_ports(struct pp_conf *conf, bool server_port_set)
{
	uint16_t nb = rte_eth_dev_count_avail(), port;

	if (!rte_eth_dev_is_valid_port(conf->client_port)) {
		fprintf(stderr, "%s: port %u does not exist (%u ports; did a --vdev fail to probe?)\n",
			PP_PROG, conf->client_port, nb);
		return -ENODEV;
	}
	if (conf->role != PP_ROLE_BOTH)
		return 0;
	if (!server_port_set) {
		RTE_ETH_FOREACH_DEV(port) {
			if (port != conf->client_port) {
				conf->server_port = port;
				server_port_set = true;
				break;
			}
		}
	}
	if (!server_port_set || conf->server_port == conf->client_port ||
	    !rte_eth_dev_is_valid_port(conf->server_port)) {
		fprintf(stderr, "%s: role both needs two ports, a client's and a server's "
			"(%u ports; did a --vdev fail to probe?)\n", PP_PROG, nb);
		return -ENODEV;
	}
	return 0;
}

static int
start_ports(const struct pp_conf *conf, struct rte_mempool *mp)
{
	struct app_port_conf pc = {
		.nb_rxq = 1,
		.nb_txq = 1,
		.nb_rxd = conf->nb_desc,
		.nb_txd = conf->nb_desc,
		.promisc = true,
		.rx_intr = conf->wait == PP_WAIT_INTR,
		.rx_timestamp = conf->one_way,
	};
	int ret;

	if (conf->role != PP_ROLE_SERVER) {
		ret = app_port_start(conf->client_port, &pc, mp);
		if (ret != 0)
			return ret;
	}
	if (conf->role != PP_ROLE_CLIENT) {
		ret = app_port_start(conf->server_port, &pc, mp);
		if (ret != 0)
			return ret;
	}
	return 0;
}

static int
wait_links(const struct pp_conf *conf)
{
	uint16_t ports[2] = { conf->client_port, conf->server_port };
	unsigned int i, n = conf->role == PP_ROLE_BOTH ? 2 : 1;

	/* A server answers whenever a client comes; it needs no link to start. */
	if (conf->role == PP_ROLE_SERVER)
		return 0;
	for (i = 0; i < n; i++) {
		if (!app_wait_link(ports[i], conf->link_timeout_s * 1000)) {
			fprintf(stderr, "%s: port %u: link still down after %" PRIu64
				" s (is the peer running?)\n", PP_PROG, ports[i],
				conf->link_timeout_s);
			return -ENOLINK;
		}
	}
	return 0;
}

/* One line on stderr when probing starts: scripts wait for "running:". */
static void
say_running(const struct pp_conf *conf)
{
	if (conf->role == PP_ROLE_SERVER) {
		fprintf(stderr, "%s: running: server on port %u; SIGINT or SIGTERM%s ends it\n",
			PP_PROG, conf->server_port, conf->duration_s > 0 ? " or --duration" : "");
		return;
	}
	fprintf(stderr, "%s: running: %s on port %u", PP_PROG, pp_role_name(conf->role),
		conf->client_port);
	if (conf->role == PP_ROLE_BOTH)
		fprintf(stderr, " and %u", conf->server_port);
	fprintf(stderr, ", %" PRIu64 " warm-up replies, then ", conf->warmup);
	if (conf->duration_s > 0)
		fprintf(stderr, "%g s of samples\n", conf->duration_s);
	else
		fprintf(stderr, "%" PRIu64 " samples\n", conf->count);
}

static int
report(const struct pp_conf *conf, const struct pp_stats *st, const struct pp_hist *h)
{
	int ret = 0;

	if (conf->json)
		pp_report_json(stdout, conf, st, h);
	else
		pp_report_text(stdout, conf, st, h);
	fflush(stdout);
	if (conf->csv_path != NULL && pp_report_csv(conf->csv_path, h) != 0)
		ret = -EIO;
	if (conf->plot_path != NULL && pp_report_plot(conf->plot_path, conf, h) != 0)
		ret = -EIO;
	return ret;
}

/* The exit status a measurement ends with. */
static int
run_status(const struct pp_conf *conf, const struct pp_stats *st, const struct pp_hist *h)
{
	if (conf->role == PP_ROLE_SERVER)
		return 0;
	if (st->gave_up) {
		fprintf(stderr, "%s: no reply for %.1f s, gave up (is the server running?)\n",
			PP_PROG, RTE_MAX(10.0 * conf->timeout_ms / 1000, 2.0));
		return PP_EXIT_FAIL;
	}
	if (h->n == 0) {
		fprintf(stderr, "%s: no samples\n", PP_PROG);
		return PP_EXIT_FAIL;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct rte_mempool *mp = NULL;
	struct pp_stats st;
	struct pp_conf conf;
	struct pp_hist *h = NULL;
	bool server_port_set;
	char *no_args[] = { argv[0], NULL };
	int eal_argc, status, ret;

	/* Parse our options (after "--") first: bad ones need no EAL. */
	for (eal_argc = 1; eal_argc < argc && strcmp(argv[eal_argc], "--") != 0; eal_argc++)
		;
	if (eal_argc < argc)
		ret = parse_args(argc - eal_argc, argv + eal_argc, &conf, &server_port_set);
	else
		ret = parse_args(1, no_args, &conf, &server_port_set);
	if (ret != 0)
		return ret > 0 ? 0 : PP_EXIT_USAGE;
	if (conf.plot_path != NULL && pp_gnuplot_path() == NULL) {
		fprintf(stderr, "%s: --plot: gnuplot not found: apt-get install gnuplot-nox\n",
			PP_PROG);
		return PP_EXIT_FAIL;
	}

	/* Logs go to stderr, so that stdout holds the report (or the JSON) alone. */
	rte_openlog_stream(stderr);
	ret = rte_eal_init(eal_argc, argv);
	if (ret < 0) {
		fprintf(stderr, "%s: cannot init EAL: %s\n", PP_PROG, rte_strerror(rte_errno));
		return PP_EXIT_FAIL;
	}
	app_signals_install();
	status = PP_EXIT_FAIL;
	if (check_ports(&conf, server_port_set) != 0) {
		status = PP_EXIT_USAGE;
		goto out;
	}
	/* Two ports, each with full Rx and Tx rings. */
	mp = rte_pktmbuf_pool_create("pp_mbufs", 4u * conf.nb_desc + PP_SPARE_MBUFS, 256, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	h = malloc(sizeof(*h));
	if (mp == NULL || h == NULL) {
		fprintf(stderr, "%s: out of memory for mbufs\n", PP_PROG);
		goto out;
	}
	if (start_ports(&conf, mp) != 0) {
		if (conf.wait == PP_WAIT_INTR)
			fprintf(stderr, "%s: (a port that has no Rx interrupts may refuse "
				"them here; try --wait poll)\n", PP_PROG);
		goto out;
	}
	/*
	 * Links first: closing a memif port whose connection is still being
	 * set up in the interrupt thread makes EAL panic.
	 */
	if (wait_links(&conf) != 0)
		goto out;
	if (conf.wait == PP_WAIT_INTR && pp_intr_setup(&conf) != 0)
		goto out;
	if (app_quit)
		goto out;
	say_running(&conf);
	pp_run(&conf, mp, h, &st);
	status = run_status(&conf, &st, h);
	if (report(&conf, &st, h) != 0 && status == 0)
		status = PP_EXIT_FAIL;
out:
	app_ports_close();
	rte_mempool_free(mp);
	free(h);
	rte_eal_cleanup();
	return status;
}
