/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * What a secondary process reads and resets through the primary, and how it
 * hears that the primary closes a port under it. Only the
 * primary reaches the device's admin queue, so the device counters, the RSS
 * table and key, and the private dump (which reads the counters) are
 * fetched there, over EAL's multi-process channel: the secondary names the
 * port and an operation and passes a buffer it took with rte_malloc() (DPDK
 * memory, at the same address in both processes); the primary runs its own
 * op on the port into that buffer and replies with the op's return value.
 * Counter resets go the same way, so that a secondary's reset is the
 * port's, as every reader sees it.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "refnic.h"
#include "refnic_logs.h"

#define REFNIC_MP_ACTION	"refnic_port_op"
#define REFNIC_MP_TIMEOUT_S	5
#define REFNIC_MP_DUMP_MAX	(64 * 1024)	/* a 64-queue port's dump fits */

enum refnic_mp_op {
	REFNIC_MP_STATS_GET,		/* buf: struct mp_stats */
	REFNIC_MP_STATS_RESET,
	REFNIC_MP_XSTATS_GET,		/* buf: len / sizeof(struct rte_eth_xstat) of them */
	REFNIC_MP_XSTATS_RESET,
	REFNIC_MP_RETA_QUERY,		/* buf: the entries for arg table slots, masks set */
	REFNIC_MP_RSS_CONF_GET,		/* buf: struct mp_rss_conf */
	REFNIC_MP_PRIV_DUMP,		/* buf: text, NUL-terminated */
};

struct refnic_mp_req {
	uint32_t op;
	uint16_t port_id;
	uint32_t arg;
	uint32_t len;			/* bytes at buf */
	void *buf;
};

struct refnic_mp_rep {
	int32_t ret;
};

/* From the primary to every secondary: the port is closing. */
#define REFNIC_MP_CLOSING_ACTION	"refnic_port_closing"
#define REFNIC_MP_CLOSING_TIMEOUT_S	2

struct refnic_mp_closing {
	uint16_t port_id;
};

struct mp_stats {
	struct rte_eth_stats stats;
	struct refnic_qstats qstats;
};

struct mp_rss_conf {
	struct rte_eth_rss_conf conf;
	uint8_t key[REFNIC_RSS_KEY_SIZE];
};

/*
 * In the primary: the port's own op, as if its application had called it.
 * buf is trusted as the secondary is: it maps all of this process's DPDK
 * memory already, so writing where it points gives it nothing it lacks.
 */
static int
mp_run(struct rte_eth_dev *dev, const struct refnic_mp_req *r)
{
	const struct eth_dev_ops *ops = dev->dev_ops;
	FILE *f;
	int ret;

	if (r->buf == NULL && r->op != REFNIC_MP_STATS_RESET && r->op != REFNIC_MP_XSTATS_RESET)
		return -EINVAL;
	switch (r->op) {
	case REFNIC_MP_STATS_GET: {
		struct mp_stats *s = r->buf;

		if (r->len != sizeof(*s))
			return -EINVAL;
		return refnic_stats_fill(dev, &s->stats, &s->qstats);
	}
	case REFNIC_MP_STATS_RESET:
		return ops->stats_reset(dev);
	case REFNIC_MP_XSTATS_GET:
		return ops->xstats_get(dev, r->buf, r->len / sizeof(struct rte_eth_xstat));
	case REFNIC_MP_XSTATS_RESET:
		return ops->xstats_reset(dev);
	case REFNIC_MP_RETA_QUERY:
		if (r->arg > UINT16_MAX || r->len < RTE_ALIGN_CEIL(r->arg, RTE_ETH_RETA_GROUP_SIZE) /
		    RTE_ETH_RETA_GROUP_SIZE * sizeof(struct rte_eth_rss_reta_entry64))
			return -EINVAL;
		return ops->reta_query(dev, r->buf, r->arg);
	case REFNIC_MP_RSS_CONF_GET: {
		struct mp_rss_conf *c = r->buf;

		if (r->len != sizeof(*c))
			return -EINVAL;
		if (c->conf.rss_key != NULL)	/* only ever its own key buffer */
			c->conf.rss_key = c->key;
		return ops->rss_hash_conf_get(dev, &c->conf);
	}
	case REFNIC_MP_PRIV_DUMP:
		if (r->len < 2)
			return -EINVAL;
		f = fmemopen(r->buf, r->len - 1, "w");	/* the last byte stays NUL */
		if (f == NULL)
			return -errno;
		ret = ops->eth_dev_priv_dump(dev, f);
		fclose(f);
		return ret;
	default:
		return -ENOTSUP;
	}
}

/* In the primary, on EAL's multi-process thread: a secondary asks. */
static int
mp_action(const struct rte_mp_msg *msg, const void *peer)
{
	const struct refnic_mp_req *r = (const struct refnic_mp_req *)msg->param;
	struct rte_mp_msg out;
	struct refnic_mp_rep *rep = (struct refnic_mp_rep *)out.param;

	memset(&out, 0, sizeof(out));
	strlcpy(out.name, msg->name, sizeof(out.name));
	out.len_param = sizeof(*rep);
	if (msg->len_param != sizeof(*r) || !rte_eth_dev_is_valid_port(r->port_id) ||
	    !refnic_is_port(&rte_eth_devices[r->port_id]))
		rep->ret = -ENODEV;
	else
		rep->ret = mp_run(&rte_eth_devices[r->port_id], r);
	return rte_mp_reply(&out, peer);
}

/* In a secondary, on EAL's multi-process thread: the primary closes a port. */
static int
mp_port_closing(const struct rte_mp_msg *msg, const void *peer)
{
	const struct refnic_mp_closing *c = (const struct refnic_mp_closing *)msg->param;
	struct rte_mp_msg out;

	/* A port this process does not use is let go of already. */
	if (msg->len_param == sizeof(*c) && rte_eth_dev_is_valid_port(c->port_id) &&
	    refnic_is_port(&rte_eth_devices[c->port_id]))
		refnic_secondary_port_gone(&rte_eth_devices[c->port_id]);
	memset(&out, 0, sizeof(out));
	strlcpy(out.name, msg->name, sizeof(out.name));
	return rte_mp_reply(&out, peer);
}

/* The primary answers secondaries' requests; secondaries hear of closes. */
void
refnic_mp_listen(void)
{
	bool primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	static bool listening;

	if (listening)
		return;
	/* ENOTSUP: no multi-process here (--no-shconf, --in-memory). */
	if (rte_mp_action_register(primary ? REFNIC_MP_ACTION : REFNIC_MP_CLOSING_ACTION,
				   primary ? mp_action : mp_port_closing) == 0 ||
	    rte_errno == EEXIST || rte_errno == ENOTSUP)
		listening = true;
	else if (primary)
		PMD_INIT_LOG(WARNING, "secondary processes cannot read device counters: %s",
			     rte_strerror(rte_errno));
	else
		PMD_INIT_LOG(WARNING, "this process will not hear that the primary closes a "
			     "port: %s", rte_strerror(rte_errno));
}

/*
 * In the primary, closing a port: every secondary lets go of it (its bursts
 * stop, those under way finish) before its queues are freed. 0 once all
 * have answered (or there are none), else the port's memory must stay.
 */
int
refnic_mp_port_closing(struct rte_eth_dev *dev)
{
	struct timespec timeout = { .tv_sec = REFNIC_MP_CLOSING_TIMEOUT_S };
	struct rte_mp_reply reply = { 0 };
	struct rte_mp_msg msg;
	int ret = 0;

	memset(&msg, 0, sizeof(msg));
	strlcpy(msg.name, REFNIC_MP_CLOSING_ACTION, sizeof(msg.name));
	msg.len_param = sizeof(struct refnic_mp_closing);
	((struct refnic_mp_closing *)msg.param)->port_id = dev->data->port_id;
	if (rte_mp_request_sync(&msg, &reply, &timeout) != 0)
		ret = rte_errno == ENOTSUP ? 0 : -rte_errno;	/* no multi-process */
	else if (reply.nb_received != reply.nb_sent)
		ret = -ETIMEDOUT;
	if (ret != 0)
		PMD_DRV_LOG(ERR, "port %u: %d of %d secondary processes answered its close: %s",
			    dev->data->port_id, reply.nb_received, reply.nb_sent,
			    rte_strerror(-ret));
	free(reply.msgs);
	return ret;
}

/* In a secondary: run op on the port in the primary; its return value. */
static int
mp_request(struct rte_eth_dev *dev, enum refnic_mp_op op, void *buf, uint32_t len,
	   uint32_t arg)
{
	struct timespec timeout = { .tv_sec = REFNIC_MP_TIMEOUT_S };
	struct rte_mp_reply reply = { 0 };
	struct refnic_mp_req *r;
	struct rte_mp_msg msg;
	int ret;

	memset(&msg, 0, sizeof(msg));
	strlcpy(msg.name, REFNIC_MP_ACTION, sizeof(msg.name));
	msg.len_param = sizeof(*r);
	r = (struct refnic_mp_req *)msg.param;
	r->op = op;
	r->port_id = dev->data->port_id;
	r->arg = arg;
	r->len = len;
	r->buf = buf;
	if (rte_mp_request_sync(&msg, &reply, &timeout) != 0 || reply.nb_received != 1) {
		PMD_DRV_LOG(ERR, "port %u: the primary process does not answer: %s",
			    dev->data->port_id, rte_strerror(rte_errno));
		ret = -EIO;
	} else if (reply.msgs[0].len_param != sizeof(struct refnic_mp_rep)) {
		ret = -EPROTO;
	} else {
		ret = ((const struct refnic_mp_rep *)reply.msgs[0].param)->ret;
	}
	free(reply.msgs);
	return ret;
}

/* mp_request() with a buffer both processes map, copied from and back to p. */
static int
mp_request_copy(struct rte_eth_dev *dev, enum refnic_mp_op op, void *p, uint32_t len,
		uint32_t arg)
{
	void *buf = rte_zmalloc("refnic_mp", len, 0);
	int ret;

	if (buf == NULL)
		return -ENOMEM;
	memcpy(buf, p, len);
	ret = mp_request(dev, op, buf, len, arg);
	if (ret >= 0)
		memcpy(p, buf, len);
	rte_free(buf);
	return ret;
}

int
refnic_mp_stats_fill(struct rte_eth_dev *dev, struct rte_eth_stats *stats,
		     struct refnic_qstats *qstats)
{
	struct mp_stats *s = rte_zmalloc("refnic_mp", sizeof(*s), 0);
	int ret;

	if (s == NULL)
		return -ENOMEM;
	ret = mp_request(dev, REFNIC_MP_STATS_GET, s, sizeof(*s), 0);
	if (ret >= 0) {
		*stats = s->stats;
		/* Before DPDK 25.11 qstats is stats itself: after the totals. */
		if (qstats != NULL) {
			memcpy(qstats->q_ipackets, s->qstats.q_ipackets, sizeof(qstats->q_ipackets));
			memcpy(qstats->q_opackets, s->qstats.q_opackets, sizeof(qstats->q_opackets));
			memcpy(qstats->q_ibytes, s->qstats.q_ibytes, sizeof(qstats->q_ibytes));
			memcpy(qstats->q_obytes, s->qstats.q_obytes, sizeof(qstats->q_obytes));
			memcpy(qstats->q_errors, s->qstats.q_errors, sizeof(qstats->q_errors));
		}
	}
	rte_free(s);
	return ret;
}

int
refnic_mp_stats_reset(struct rte_eth_dev *dev)
{
	return mp_request(dev, REFNIC_MP_STATS_RESET, NULL, 0, 0);
}

int
refnic_mp_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xstats, unsigned int n)
{
	/* How many there are, and their names, this process knows itself. */
	int count = refnic_xstats_get_names(dev, NULL, 0);

	if (xstats == NULL || n < (unsigned int)count)
		return count;
	return mp_request_copy(dev, REFNIC_MP_XSTATS_GET, xstats, count * sizeof(*xstats), 0);
}

int
refnic_mp_xstats_reset(struct rte_eth_dev *dev)
{
	return mp_request(dev, REFNIC_MP_XSTATS_RESET, NULL, 0, 0);
}

int
refnic_mp_reta_query(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *reta,
		     uint16_t reta_size)
{
	uint32_t groups = RTE_ALIGN_CEIL(reta_size, RTE_ETH_RETA_GROUP_SIZE) /
			  RTE_ETH_RETA_GROUP_SIZE;

	return mp_request_copy(dev, REFNIC_MP_RETA_QUERY, reta, groups * sizeof(*reta),
			       reta_size);
}

int
refnic_mp_rss_hash_conf_get(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf)
{
	struct mp_rss_conf *c = rte_zmalloc("refnic_mp", sizeof(*c), 0);
	int ret;

	if (c == NULL)
		return -ENOMEM;
	c->conf = *conf;
	c->conf.rss_key = conf->rss_key != NULL ? c->key : NULL;
	c->conf.rss_key_len = RTE_MIN(conf->rss_key_len, (uint8_t)sizeof(c->key));
	ret = mp_request(dev, REFNIC_MP_RSS_CONF_GET, c, sizeof(*c), 0);
	if (ret == 0) {
		if (conf->rss_key != NULL)
			memcpy(conf->rss_key, c->key, c->conf.rss_key_len);
		conf->rss_key_len = c->conf.rss_key_len;
		conf->rss_hf = c->conf.rss_hf;
	}
	rte_free(c);
	return ret;
}

int
refnic_mp_priv_dump(struct rte_eth_dev *dev, FILE *f)
{
	char *text = rte_zmalloc("refnic_mp", REFNIC_MP_DUMP_MAX, 0);
	int ret;

	if (text == NULL)
		return -ENOMEM;
	ret = mp_request(dev, REFNIC_MP_PRIV_DUMP, text, REFNIC_MP_DUMP_MAX, 0);
	if (ret == 0)
		fputs(text, f);
	rte_free(text);
	return ret;
}
