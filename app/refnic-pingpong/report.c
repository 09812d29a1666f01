/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/* What a run prints: text, JSON, the histogram as CSV, a gnuplot PNG. */

#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_ethdev.h>

#include "pingpong.h"

extern char **environ;

/* The percentiles every report gives, and their JSON names. */
static const struct {
	double p;
	const char *text;
	const char *json;
} pp_pcts[] = {
	{ 50, "p50", "p50_ns" },
	{ 90, "p90", "p90_ns" },
	{ 99, "p99", "p99_ns" },
	{ 99.9, "p99.9", "p999_ns" },
};

const char *
pp_role_name(enum pp_role role)
{
	switch (role) {
	case PP_ROLE_CLIENT:
		return "client";
	case PP_ROLE_SERVER:
		return "server";
	default:
		return "both";
	}
}

static const char *
pp_driver(uint16_t port)
{
	struct rte_eth_dev_info info;

	if (rte_eth_dev_info_get(port, &info) != 0 || info.driver_name == NULL)
		return "?";
	return info.driver_name;
}

static uint64_t
pp_min(const struct pp_hist *h)
{
	return h->n != 0 ? h->min : 0;
}

static void
pp_report_one_way_text(FILE *f, const struct pp_oneway *ow)
{
	const struct pp_hist *dir[] = { &ow->there, &ow->back };
	const char *name[] = { "there", "back" };
	unsigned int d, i;

	if (ow->there.n == 0) {
		fprintf(f, "  one-way: none (%" PRIu64 " samples without stamps or clocks, %"
			PRIu64 " before their send: clocks not in one time base?)\n",
			ow->unstamped, ow->negative);
		return;
	}
	for (d = 0; d < RTE_DIM(dir); d++) {
		fprintf(f, "  one-way %s ns: min %" PRIu64, name[d], pp_min(dir[d]));
		for (i = 0; i < RTE_DIM(pp_pcts); i++)
			fprintf(f, "  %s %" PRIu64, pp_pcts[i].text,
				pp_hist_percentile(dir[d], pp_pcts[i].p));
		fprintf(f, "  max %" PRIu64 "  mean %.1f\n", dir[d]->max, pp_hist_mean(dir[d]));
	}
	if (ow->unstamped != 0 || ow->negative != 0)
		fprintf(f, "  one-way: %" PRIu64 " samples without stamps, %" PRIu64
			" before their send\n", ow->unstamped, ow->negative);
}

static void
pp_report_one_way_json(FILE *f, const struct pp_oneway *ow)
{
	const struct pp_hist *dir[] = { &ow->there, &ow->back };
	const char *name[] = { "there", "back" };
	unsigned int d, i;

	fprintf(f, ", \"one_way\": {\"samples\": %" PRIu64 ", \"unstamped\": %" PRIu64
		", \"negative\": %" PRIu64, ow->there.n, ow->unstamped, ow->negative);
	for (d = 0; d < RTE_DIM(dir) && ow->there.n != 0; d++) {
		fprintf(f, ", \"%s\": {\"min_ns\": %" PRIu64 ", \"mean_ns\": %.1f", name[d],
			pp_min(dir[d]), pp_hist_mean(dir[d]));
		for (i = 0; i < RTE_DIM(pp_pcts); i++)
			fprintf(f, ", \"%s\": %" PRIu64, pp_pcts[i].json,
				pp_hist_percentile(dir[d], pp_pcts[i].p));
		fprintf(f, ", \"max_ns\": %" PRIu64 "}", dir[d]->max);
	}
	fprintf(f, "}");
}

void
pp_report_text(FILE *f, const struct pp_conf *conf, const struct pp_stats *st,
	       const struct pp_hist *h)
{
	unsigned int i;

	if (conf->role == PP_ROLE_SERVER) {
		fprintf(f, "%s: server, port %u (%s): %" PRIu64 " probes sent back, %"
			PRIu64 " other frames ignored, %.2f s%s\n", PP_PROG,
			conf->server_port, pp_driver(conf->server_port), st->reflected,
			st->ignored, st->elapsed_s, st->interrupted ? " (interrupted)" : "");
		return;
	}
	fprintf(f, "%s: %s, port %u (%s)", PP_PROG, pp_role_name(conf->role),
		conf->client_port, pp_driver(conf->client_port));
	if (conf->role == PP_ROLE_BOTH)
		fprintf(f, " -> port %u (%s) -> back", conf->server_port,
			pp_driver(conf->server_port));
	fprintf(f, ", %u B frames, %u in flight, wait %s\n", conf->size, conf->inflight,
		conf->wait == PP_WAIT_INTR ? "intr" : "poll");
	fprintf(f, "  samples %" PRIu64 " in %.3f s after %" PRIu64 " warm-up; %" PRIu64
		" sent, %" PRIu64 " lost, %" PRIu64 " late, %" PRIu64 " stray%s\n",
		h->n, st->elapsed_s, conf->warmup, st->sent, st->lost, st->late, st->stray,
		st->interrupted ? " (interrupted)" : "");
	if (conf->wait == PP_WAIT_INTR)
		fprintf(f, "  interrupt waits %" PRIu64 ", ended by a frame %" PRIu64 "\n",
			st->sleeps, st->wakeups);
	fprintf(f, "  RTT ns: min %" PRIu64, pp_min(h));
	for (i = 0; i < RTE_DIM(pp_pcts); i++)
		fprintf(f, "  %s %" PRIu64, pp_pcts[i].text,
			pp_hist_percentile(h, pp_pcts[i].p));
	fprintf(f, "  max %" PRIu64 "  mean %.1f\n", h->n != 0 ? h->max : 0,
		pp_hist_mean(h));
	if (conf->one_way)
		pp_report_one_way_text(f, &st->oneway);
}

void
pp_report_json(FILE *f, const struct pp_conf *conf, const struct pp_stats *st,
	       const struct pp_hist *h)
{
	unsigned int i;

	fprintf(f, "{\"role\": \"%s\", \"wait\": \"%s\"", pp_role_name(conf->role),
		conf->wait == PP_WAIT_INTR ? "intr" : "poll");
	if (conf->role != PP_ROLE_SERVER)
		fprintf(f, ", \"port\": %u, \"driver\": \"%s\"", conf->client_port,
			pp_driver(conf->client_port));
	if (conf->role != PP_ROLE_CLIENT)
		fprintf(f, ", \"server_port\": %u, \"server_driver\": \"%s\"",
			conf->server_port, pp_driver(conf->server_port));
	fprintf(f, ", \"size\": %u, \"elapsed_s\": %.6f, \"interrupted\": %s",
		conf->size, st->elapsed_s, st->interrupted ? "true" : "false");
	if (conf->role == PP_ROLE_SERVER) {
		fprintf(f, ", \"reflected\": %" PRIu64 ", \"ignored\": %" PRIu64
			", \"goodbyes\": %" PRIu64, st->reflected, st->ignored, st->goodbyes);
		if (conf->wait == PP_WAIT_INTR)
			fprintf(f, ", \"intr_waits\": %" PRIu64 ", \"intr_wakeups\": %" PRIu64,
				st->sleeps, st->wakeups);
		fprintf(f, "}\n");
		return;
	}
	fprintf(f, ", \"inflight\": %u, \"warmup\": %" PRIu64 ", \"samples\": %" PRIu64
		", \"sent\": %" PRIu64 ", \"lost\": %" PRIu64 ", \"late\": %" PRIu64
		", \"stray\": %" PRIu64, conf->inflight, conf->warmup, h->n, st->sent,
		st->lost, st->late, st->stray);
	if (conf->role == PP_ROLE_CLIENT)
		fprintf(f, ", \"bye_acked\": %s", st->bye_acked ? "true" : "false");
	if (conf->wait == PP_WAIT_INTR)
		fprintf(f, ", \"intr_waits\": %" PRIu64 ", \"intr_wakeups\": %" PRIu64,
			st->sleeps, st->wakeups);
	fprintf(f, ", \"min_ns\": %" PRIu64 ", \"mean_ns\": %.1f", pp_min(h),
		pp_hist_mean(h));
	for (i = 0; i < RTE_DIM(pp_pcts); i++)
		fprintf(f, ", \"%s\": %" PRIu64, pp_pcts[i].json,
			pp_hist_percentile(h, pp_pcts[i].p));
	if (conf->one_way)
		pp_report_one_way_json(f, &st->oneway);
	fprintf(f, ", \"max_ns\": %" PRIu64 ", \"percentiles\": \"bucket upper bound, "
		"at most max\", \"bucket_width_max_pct\": %.2f}\n",
		h->n != 0 ? h->max : 0, 100.0 / PP_HIST_SUB);
}

/* The buckets from the lowest to the highest sample, as [first, last]. */
static void
pp_hist_span(const struct pp_hist *h, unsigned int *first, unsigned int *last)
{
	*first = pp_hist_index(h->min);
	*last = pp_hist_index(h->max);
}

int
pp_report_csv(const char *path, const struct pp_hist *h)
{
	unsigned int i, first, last;
	FILE *f = fopen(path, "w");

	if (f == NULL) {
		fprintf(stderr, "%s: --csv: cannot write %s: %s\n", PP_PROG, path,
			strerror(errno));
		return -errno;
	}
	fprintf(f, "lower_ns,upper_ns,count\n");
	if (h->n != 0) {
		pp_hist_span(h, &first, &last);
		for (i = first; i <= last; i++)
			fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", pp_hist_lower(i),
				pp_hist_upper(i), h->count[i]);
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "%s: --csv: cannot write %s: %s\n", PP_PROG, path,
			strerror(errno));
		return -EIO;
	}
	return 0;
}

const char *
pp_gnuplot_path(void)
{
	static char found[4096];
	const char *path = getenv("PATH"), *p, *end;

	for (p = path; p != NULL && *p != '\0'; p = *end != '\0' ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (end == p)
			continue;
		snprintf(found, sizeof(found), "%.*s/gnuplot", (int)(end - p), p);
		if (access(found, X_OK) == 0)
			return found;
	}
	return NULL;
}

/* gnuplot strings in single quotes take everything but a single quote. */
static bool
pp_gnuplot_safe(const char *s)
{
	return strchr(s, '\'') == NULL && strchr(s, '\n') == NULL;
}

static int
pp_write_plot_data(FILE *f, const struct pp_hist *h)
{
	unsigned int i, first, last;
	uint64_t above = h->n;

	/* lower upper count fraction_of_samples_at_or_above_upper */
	pp_hist_span(h, &first, &last);
	for (i = first; i <= last; i++) {
		above -= h->count[i];
		fprintf(f, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %.9g\n", pp_hist_lower(i),
			pp_hist_upper(i), h->count[i], (double)above / (double)h->n);
	}
	return ferror(f) ? -EIO : 0;
}

static int
pp_write_plot_script(FILE *f, const char *png, const char *data,
		     const struct pp_conf *conf, const struct pp_hist *h)
{
	unsigned int i;

	fprintf(f,
		"if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		"  set terminal pngcairo size 1000,750 font ',10'\n"
		"} else {\n"
		"  set terminal png size 1000,750\n"
		"}\n"
		"set termoption noenhanced\n"
		"set output '%s'\n"
		"set multiplot layout 2,1 title '%s RTT: %s, port %u (%s), %u B, %u in flight, "
		"%" PRIu64 " samples'\n"
		"set logscale x\n"
		"set format x '%%g'\n"
		"set xlabel 'round-trip time (us)'\n"
		"set grid\n"
		"set key off\n",
		png, PP_PROG, pp_role_name(conf->role), conf->client_port,
		pp_driver(conf->client_port), conf->size, conf->inflight, h->n);
	/* A dashed line per percentile; the values in one label ("" reads \\n). */
	fprintf(f, "set label 1 \"");
	for (i = 0; i < RTE_DIM(pp_pcts); i++) {
		uint64_t v = pp_hist_percentile(h, pp_pcts[i].p);

		fprintf(f, "%s%s %.2f us", i > 0 ? "\\n" : "", pp_pcts[i].text, v / 1e3);
	}
	fprintf(f, "\\nmax %.2f us\" at graph 0.75, graph 0.92 front\n", h->max / 1e3);
	for (i = 0; i < RTE_DIM(pp_pcts); i++) {
		uint64_t v = pp_hist_percentile(h, pp_pcts[i].p);

		fprintf(f, "set arrow from %.3f, graph 0 to %.3f, graph 1 nohead dt 2 "
			"lc rgb 'dark-red'\n", v / 1e3, v / 1e3);
	}
	/* Data in ns, axis in us. Bucket 0 holds 0 ns: log x needs a left edge > 0. */
	fprintf(f,
		"set ylabel 'samples per bucket'\n"
		"set style fill solid 0.6\n"
		"plot '%s' using (($1+$2)/2e3):3:($1 > 0 ? $1/1e3 : 5e-4):($2/1e3):(0):3 "
		"with boxxyerror lc rgb 'steelblue'\n"
		"unset arrow\n"
		"unset label\n"
		"set logscale y\n"
		"set format y '%%g'\n"
		"set ylabel 'fraction of samples above'\n"
		"plot '%s' using ($2/1e3):($4 > 0 ? $4 : 1/0) with steps lw 2 "
		"lc rgb 'steelblue'\n"
		"unset multiplot\n", data, data);
	return ferror(f) ? -EIO : 0;
}

/* A temporary file for writing, named in tmpl; tmpl emptied on failure. */
static FILE *
pp_tmpfile(char *tmpl)
{
	int fd = mkstemp(tmpl);
	FILE *f;

	if (fd < 0) {
		tmpl[0] = '\0';
		return NULL;
	}
	f = fdopen(fd, "w");
	if (f == NULL) {
		close(fd);
		unlink(tmpl);
		tmpl[0] = '\0';
	}
	return f;
}

int
pp_report_plot(const char *path, const struct pp_conf *conf, const struct pp_hist *h)
{
	char data[] = "/tmp/refnic-pingpong-data-XXXXXX";
	char script[] = "/tmp/refnic-pingpong-plot-XXXXXX";
	const char *gp = pp_gnuplot_path();
	FILE *fd = NULL, *fs = NULL;
	int ret = -EIO, status, rd, rs;
	bool keep = false;
	char *argv[3];
	pid_t pid;

	if (gp == NULL) {
		fprintf(stderr, "%s: --plot: gnuplot not found: apt-get install gnuplot-nox\n",
			PP_PROG);
		return -ENOENT;
	}
	if (!pp_gnuplot_safe(path)) {
		fprintf(stderr, "%s: --plot: a file name with a quote or newline: %s\n",
			PP_PROG, path);
		return -EINVAL;
	}
	if (h->n == 0) {
		fprintf(stderr, "%s: --plot: no samples to draw\n", PP_PROG);
		return -ENODATA;
	}
	fd = pp_tmpfile(data);
	fs = pp_tmpfile(script);
	if (fd == NULL || fs == NULL) {
		fprintf(stderr, "%s: --plot: cannot write temporary files: %s\n", PP_PROG,
			strerror(errno));
		goto out;
	}
	rd = pp_write_plot_data(fd, h);
	rs = pp_write_plot_script(fs, path, data, conf, h);
	rd |= fclose(fd);
	rs |= fclose(fs);
	fd = fs = NULL;
	if (rd != 0 || rs != 0) {
		fprintf(stderr, "%s: --plot: cannot write temporary files\n", PP_PROG);
		goto out;
	}
	argv[0] = (char *)(uintptr_t)gp;
	argv[1] = script;
	argv[2] = NULL;
	if (posix_spawn(&pid, gp, NULL, NULL, argv, environ) != 0 ||
	    waitpid(pid, &status, 0) != pid) {
		fprintf(stderr, "%s: --plot: cannot run %s\n", PP_PROG, gp);
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		/* Keep the script and its data for whoever wants to see why. */
		fprintf(stderr, "%s: --plot: gnuplot failed on %s\n", PP_PROG, script);
		keep = true;
		goto out;
	}
	fprintf(stderr, "%s: plot written to %s\n", PP_PROG, path);
	ret = 0;
out:
	if (fd != NULL)
		fclose(fd);
	if (fs != NULL)
		fclose(fs);
	if (!keep && data[0] != '\0')
		unlink(data);
	if (!keep && script[0] != '\0')
		unlink(script);
	return ret;
}
