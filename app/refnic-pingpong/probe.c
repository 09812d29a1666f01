/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Probes and the client/server loops. A probe is a UDP/IPv4 frame whose
 * payload carries a slot, a sequence number and the client's TSC at send.
 * The client keeps up to --inflight probes outstanding, one per slot; a
 * reply matches when its slot still waits for that sequence number. The
 * server sends probes back with MACs, IPs and ports swapped. With --one-way
 * a struct pp_clocks follows the payload: the device clocks at each send
 * and the server's RX stamp, from which each direction's latency comes.
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_epoll.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_interrupts.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_random.h>
#include <rte_udp.h>

#include "app_common.h"
#include "pingpong.h"
#include "refnic_compat.h"

#define PP_BURST 32
#define PP_MAGIC 0x7070
#define PP_KIND_PROBE 1
#define PP_KIND_REPLY 2
#define PP_UDP_PORT 7		/* echo */
#define PP_IP_CLIENT RTE_IPV4(198, 18, 0, 1)	/* RFC 2544 benchmark range */
#define PP_IP_SERVER RTE_IPV4(198, 18, 0, 2)
/* Longest epoll sleep: bounds how late a signal or deadline is seen. */
#define PP_MAX_SLEEP_MS 100
/* No reply for this long (and at least 10 probe timeouts): stop. */
#define PP_GIVE_UP_MS 2000

struct __rte_packed_begin pp_payload {
	uint16_t magic;
	uint8_t kind;
	uint8_t pad;
	uint16_t session;	/* per client run: replies to an older run are strays */
	uint16_t slot;
	uint32_t seq;
	uint64_t tsc;		/* client's TSC when the probe was handed to the port */
} __rte_packed_end;

/* --one-way, after the payload: device clock readings, 0 if none. */
struct __rte_packed_begin pp_clocks {
	uint64_t client_tx;	/* the client port's clock when the probe was sent */
	uint64_t server_rx;	/* the server port's RX stamp of the probe */
	uint64_t server_tx;	/* the server port's clock when it was sent back */
} __rte_packed_end;

#define PP_HDR_LEN (sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr) + \
		    sizeof(struct rte_udp_hdr))

_Static_assert(PP_HDR_LEN + sizeof(struct pp_payload) + sizeof(struct pp_clocks) ==
	       PP_ONE_WAY_MIN_SIZE, "--one-way's minimum frame");

/* The RX timestamp dynfield, if the PMD registered it (--one-way). */
static int pp_ts_offset = -1;
static uint64_t pp_ts_flag;

static struct pp_clocks *
pp_clocks_of(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, struct pp_clocks *,
				       PP_HDR_LEN + sizeof(struct pp_payload));
}

static uint64_t
pp_rx_stamp(const struct rte_mbuf *m)
{
	if (pp_ts_offset < 0 || !(m->ol_flags & pp_ts_flag))
		return 0;
	return *RTE_MBUF_DYNFIELD(m, pp_ts_offset, const rte_mbuf_timestamp_t *);
}

static uint64_t
pp_port_clock(uint16_t port)
{
	uint64_t c;

	return rte_eth_read_clock(port, &c) == 0 ? c : 0;
}

struct pp_slot {
	uint64_t tsc;
	uint32_t seq;
	bool busy;
};

struct pp_client {
	const struct pp_conf *conf;
	struct rte_mempool *mp;
	struct pp_hist *h;
	struct pp_stats *st;
	uint8_t frame[RTE_ETHER_MAX_LEN];	/* template of every probe */
	struct pp_slot *slots;
	uint16_t *free;				/* stack of free slot indexes */
	uint32_t nb_free;
	uint32_t next_seq;
	uint16_t session;
	double ns_per_tsc;
	uint64_t timeout_tsc;
	uint64_t give_up_tsc;
	uint64_t last_reply_tsc;
	uint64_t start_tsc;			/* sampling started (warm-up over) */
	uint64_t end_tsc;			/* --duration: stop sending then */
	bool sampling;
};

/* The probe payload of a frame, or NULL if the frame is not a probe. */
static struct pp_payload *
pp_payload_of(struct rte_mbuf *m)
{
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	struct pp_payload *p;

	if (rte_pktmbuf_data_len(m) < PP_HDR_LEN + sizeof(*p))
		return NULL;
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	udp = (struct rte_udp_hdr *)(ip + 1);
	p = (struct pp_payload *)(udp + 1);
	if (eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    ip->version_ihl != RTE_IPV4_VHL_DEF || ip->next_proto_id != IPPROTO_UDP ||
	    (udp->dst_port != rte_cpu_to_be_16(PP_UDP_PORT) &&
	     udp->src_port != rte_cpu_to_be_16(PP_UDP_PORT)) ||
	    p->magic != PP_MAGIC)
		return NULL;
	return p;
}

static void
pp_frame_init(struct pp_client *c, uint16_t port)
{
	const struct pp_conf *conf = c->conf;
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)c->frame;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	struct pp_payload *p = (struct pp_payload *)(udp + 1);
	uint16_t l3_len = conf->size - sizeof(*eth);

	memset(c->frame, 0, sizeof(c->frame));
	/* Ports are promiscuous; role both knows its peer, others broadcast. */
	if (conf->role != PP_ROLE_BOTH ||
	    rte_eth_macaddr_get(conf->server_port, &eth->dst_addr) != 0)
		memset(&eth->dst_addr, 0xff, sizeof(eth->dst_addr));
	rte_eth_macaddr_get(port, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(l3_len);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(PP_IP_CLIENT);
	ip->dst_addr = rte_cpu_to_be_32(PP_IP_SERVER);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(PP_UDP_PORT);
	udp->dst_port = rte_cpu_to_be_16(PP_UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16(l3_len - sizeof(*ip));
	p->magic = PP_MAGIC;
	p->kind = PP_KIND_PROBE;
	p->session = c->session;
}

/*
 * Server side: send back every probe that arrived on port. Returns the
 * frames received, so that the caller knows whether it had work.
 */
static unsigned int
pp_serve(uint16_t port, const struct rte_ether_addr *mac, bool one_way, struct pp_stats *st)
{
	struct rte_mbuf *pkts[PP_BURST], *out[PP_BURST];
	uint16_t n, i, k = 0, sent;

	n = rte_eth_rx_burst(port, 0, pkts, PP_BURST);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct pp_payload *p = pp_payload_of(m);
		struct rte_ether_hdr *eth;
		struct rte_ipv4_hdr *ip;
		struct rte_udp_hdr *udp;
		rte_be32_t a;
		rte_be16_t u;

		if (p == NULL || p->kind != PP_KIND_PROBE) {
			st->ignored++;
			rte_pktmbuf_free(m);
			continue;
		}
		eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		ip = (struct rte_ipv4_hdr *)(eth + 1);
		udp = (struct rte_udp_hdr *)(ip + 1);
		rte_ether_addr_copy(&eth->src_addr, &eth->dst_addr);
		rte_ether_addr_copy(mac, &eth->src_addr);
		/* Swaps keep both checksums valid. */
		a = ip->src_addr;
		ip->src_addr = ip->dst_addr;
		ip->dst_addr = a;
		u = udp->src_port;
		udp->src_port = udp->dst_port;
		udp->dst_port = u;
		p->kind = PP_KIND_REPLY;
		if (one_way)
			pp_clocks_of(m)->server_rx = pp_rx_stamp(m);
		m->ol_flags = 0;
		out[k++] = m;
	}
	if (k == 0)
		return n;
	if (one_way) {
		uint64_t now = pp_port_clock(port);

		for (i = 0; i < k; i++)
			pp_clocks_of(out[i])->server_tx = now;
	}
	sent = rte_eth_tx_burst(port, 0, out, k);
	st->reflected += sent;
	if (sent < k) {
		st->tx_busy++;
		rte_pktmbuf_free_bulk(&out[sent], k - sent);
	}
	return n;
}

static uint32_t
pp_outstanding(const struct pp_client *c)
{
	return c->conf->inflight - c->nb_free;
}

static void
pp_start_sampling(struct pp_client *c, uint64_t now)
{
	c->sampling = true;
	c->start_tsc = now;
	if (c->conf->duration_s > 0)
		c->end_tsc = now + (uint64_t)(c->conf->duration_s * rte_get_tsc_hz());
}

/* Whether another probe should go out now. */
static bool
pp_want_more(const struct pp_client *c, uint64_t now)
{
	const struct pp_conf *conf = c->conf;
	uint64_t pending = c->st->replies + pp_outstanding(c);

	if (app_quit)
		return false;
	if (!c->sampling)
		return pending < conf->warmup;
	if (conf->duration_s > 0)
		return now < c->end_tsc;
	return pending < conf->warmup + conf->count;
}

/* A sample's two one-way latencies, if both ends stamped and clocked it. */
static void
pp_one_way(struct pp_oneway *ow, const struct pp_clocks *k, uint64_t client_rx)
{
	if (k->client_tx == 0 || k->server_rx == 0 || k->server_tx == 0 || client_rx == 0) {
		ow->unstamped++;
		return;
	}
	if ((int64_t)(k->server_rx - k->client_tx) < 0 || (int64_t)(client_rx - k->server_tx) < 0) {
		ow->negative++;
		return;
	}
	pp_hist_add(&ow->there, k->server_rx - k->client_tx);
	pp_hist_add(&ow->back, client_rx - k->server_tx);
}

static void
pp_on_reply(struct pp_client *c, struct rte_mbuf *m, uint64_t now)
{
	struct pp_payload *p = pp_payload_of(m);
	struct pp_slot *s;
	uint64_t ns;

	if (p == NULL || p->kind != PP_KIND_REPLY || p->session != c->session ||
	    p->slot >= c->conf->inflight) {
		c->st->stray++;
		return;
	}
	s = &c->slots[p->slot];
	if (!s->busy || s->seq != p->seq || s->tsc != p->tsc) {
		/* Sequence numbers only grow: an older one timed out. */
		if ((int32_t)(p->seq - c->next_seq) < 0)
			c->st->late++;
		else
			c->st->stray++;
		return;
	}
	s->busy = false;
	c->free[c->nb_free++] = p->slot;
	c->st->replies++;
	c->last_reply_tsc = now;
	if (c->sampling && (c->conf->duration_s > 0 || c->h->n < c->conf->count)) {
		ns = (uint64_t)((double)(now - s->tsc) * c->ns_per_tsc);
		pp_hist_add(c->h, ns);
		if (c->conf->one_way)
			pp_one_way(&c->st->oneway, pp_clocks_of(m), pp_rx_stamp(m));
	}
	if (!c->sampling && c->st->replies >= c->conf->warmup)
		pp_start_sampling(c, now);
}

static void
pp_expire(struct pp_client *c, uint64_t now)
{
	uint32_t i;

	for (i = 0; i < c->conf->inflight; i++) {
		struct pp_slot *s = &c->slots[i];

		if (s->busy && now - s->tsc > c->timeout_tsc) {
			s->busy = false;
			c->free[c->nb_free++] = i;
			c->st->lost++;
		}
	}
}

/* Send as many probes as free slots and the count allow; returns how many. */
static unsigned int
pp_send(struct pp_client *c, uint16_t port, uint64_t now)
{
	struct rte_mbuf *pkts[PP_BURST];
	uint16_t slot[PP_BURST];
	unsigned int n = 0, i, sent;
	uint64_t tsc;

	while (n < PP_BURST && c->nb_free > 0 && pp_want_more(c, now)) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(c->mp);
		struct pp_payload *p;

		if (m == NULL)
			break;
		rte_memcpy(rte_pktmbuf_mtod(m, void *), c->frame, c->conf->size);
		m->data_len = c->conf->size;
		m->pkt_len = c->conf->size;
		slot[n] = c->free[--c->nb_free];
		p = rte_pktmbuf_mtod_offset(m, struct pp_payload *, PP_HDR_LEN);
		p->slot = slot[n];
		p->seq = c->next_seq++;
		c->slots[slot[n]].seq = p->seq;
		pkts[n++] = m;
	}
	if (n == 0)
		return 0;
	/* Stamp as late as possible: the RTT starts when the port gets it. */
	tsc = rte_rdtsc();
	for (i = 0; i < n; i++) {
		rte_pktmbuf_mtod_offset(pkts[i], struct pp_payload *, PP_HDR_LEN)->tsc = tsc;
		c->slots[slot[i]].tsc = tsc;
	}
	if (c->conf->one_way) {
		uint64_t clk = pp_port_clock(port);

		for (i = 0; i < n; i++)
			*pp_clocks_of(pkts[i]) = (struct pp_clocks){ .client_tx = clk };
	}
	sent = rte_eth_tx_burst(port, 0, pkts, n);
	for (i = 0; i < sent; i++)
		c->slots[slot[i]].busy = true;
	if (sent < n) {
		c->st->tx_busy++;
		rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
		for (i = n; i > sent; i--)
			c->free[c->nb_free++] = slot[i - 1];
	}
	c->st->sent += sent;
	return sent;
}

/* Milliseconds until the oldest outstanding probe times out, capped. */
static int
pp_client_sleep_ms(const struct pp_client *c, uint64_t now)
{
	uint64_t first = UINT64_MAX, ms;
	uint32_t i;

	for (i = 0; i < c->conf->inflight; i++)
		if (c->slots[i].busy && c->slots[i].tsc + c->timeout_tsc < first)
			first = c->slots[i].tsc + c->timeout_tsc;
	/* Once the run's end has passed, only the outstanding probes count. */
	if (c->sampling && c->conf->duration_s > 0 && c->end_tsc > now && c->end_tsc < first)
		first = c->end_tsc;
	if (first == UINT64_MAX || first <= now)
		return first <= now ? 0 : PP_MAX_SLEEP_MS;
	ms = (first - now) * 1000 / rte_get_tsc_hz() + 1;
	return ms < PP_MAX_SLEEP_MS ? (int)ms : PP_MAX_SLEEP_MS;
}

/*
 * The --wait intr idle step, called once per loop pass. After a pass with
 * no work the Rx interrupts are armed and the next pass polls once more
 * (a frame that came before arming raised no interrupt); after a second
 * idle pass the lcore sleeps in epoll until a frame or the timeout.
 */
struct pp_intr {
	uint16_t ports[2];
	unsigned int nb_ports;
	bool armed;
};

static void
pp_intr_arm(struct pp_intr *in, bool on)
{
	unsigned int i;

	for (i = 0; i < in->nb_ports; i++) {
		if (on)
			rte_eth_dev_rx_intr_enable(in->ports[i], 0);
		else
			rte_eth_dev_rx_intr_disable(in->ports[i], 0);
	}
	in->armed = on;
}

static void
pp_intr_idle(struct pp_intr *in, bool worked, int sleep_ms, struct pp_stats *st)
{
	struct rte_epoll_event ev[2];
	int n;

	if (worked) {
		if (in->armed)
			pp_intr_arm(in, false);
		return;
	}
	if (!in->armed) {
		pp_intr_arm(in, true);
		return;
	}
	if (sleep_ms > 0) {
		n = rte_epoll_wait_interruptible(RTE_EPOLL_PER_THREAD, ev, RTE_DIM(ev),
						 sleep_ms);
		st->sleeps++;
		if (n > 0)
			st->wakeups++;
	}
	pp_intr_arm(in, false);
}

static void
pp_intr_ports(const struct pp_conf *conf, struct pp_intr *in)
{
	memset(in, 0, sizeof(*in));
	if (conf->role != PP_ROLE_SERVER)
		in->ports[in->nb_ports++] = conf->client_port;
	if (conf->role != PP_ROLE_CLIENT)
		in->ports[in->nb_ports++] = conf->server_port;
}

int
pp_intr_setup(const struct pp_conf *conf)
{
	struct pp_intr in;
	unsigned int i;

	pp_intr_ports(conf, &in);
	for (i = 0; i < in.nb_ports; i++) {
		uint16_t port = in.ports[i];

		if (!app_rx_intr_usable(PP_PROG, port, 0))
			return -ENOTSUP;
		if (rte_eth_dev_rx_intr_ctl_q(port, 0, RTE_EPOLL_PER_THREAD,
					      RTE_INTR_EVENT_ADD, NULL) != 0) {
			fprintf(stderr, "%s: port %u: cannot wait on its Rx interrupt\n",
				PP_PROG, port);
			return -ENOTSUP;
		}
	}
	return 0;
}

static int
pp_run_server(const struct pp_conf *conf, struct pp_stats *st)
{
	uint64_t start = rte_rdtsc(), end = UINT64_MAX, now;
	struct rte_ether_addr mac;
	struct pp_intr in;

	pp_intr_ports(conf, &in);
	rte_eth_macaddr_get(conf->server_port, &mac);
	if (conf->duration_s > 0)
		end = start + (uint64_t)(conf->duration_s * rte_get_tsc_hz());
	while (!app_quit) {
		unsigned int n = pp_serve(conf->server_port, &mac, conf->one_way, st);

		now = rte_rdtsc();
		if (now >= end)
			break;
		if (conf->wait == PP_WAIT_INTR)
			pp_intr_idle(&in, n > 0, PP_MAX_SLEEP_MS, st);
	}
	st->interrupted = app_quit;
	st->elapsed_s = (double)(rte_rdtsc() - start) / rte_get_tsc_hz();
	return 0;
}

static int
pp_run_client(struct pp_client *c)
{
	const struct pp_conf *conf = c->conf;
	uint64_t now, next_scan, scan_tsc = c->timeout_tsc / 4 + 1;
	struct rte_mbuf *pkts[PP_BURST];
	struct rte_ether_addr server_mac;
	struct pp_stats *st = c->st;
	struct pp_intr in;
	uint16_t n, i;

	pp_intr_ports(conf, &in);
	if (conf->role == PP_ROLE_BOTH)
		rte_eth_macaddr_get(conf->server_port, &server_mac);
	now = rte_rdtsc();
	c->last_reply_tsc = now;
	next_scan = now + scan_tsc;
	if (conf->warmup == 0)
		pp_start_sampling(c, now);
	while (!app_quit) {
		unsigned int work = 0;

		if (conf->role == PP_ROLE_BOTH)
			work += pp_serve(conf->server_port, &server_mac, conf->one_way, st);
		n = rte_eth_rx_burst(conf->client_port, 0, pkts, PP_BURST);
		now = rte_rdtsc();
		for (i = 0; i < n; i++)
			pp_on_reply(c, pkts[i], now);
		if (n > 0)
			rte_pktmbuf_free_bulk(pkts, n);
		work += n;
		if (now >= next_scan) {
			pp_expire(c, now);
			next_scan = now + scan_tsc;
		}
		work += pp_send(c, conf->client_port, now);
		if (pp_outstanding(c) == 0 && !pp_want_more(c, now))
			break;
		if (now - c->last_reply_tsc > c->give_up_tsc) {
			st->gave_up = true;
			break;
		}
		if (conf->wait == PP_WAIT_INTR) {
			int ms = pp_client_sleep_ms(c, now);

			/* A probe's time is up: expire it now, not at the next
			 * scan, or every pass until then would skip the sleep. */
			if (ms == 0) {
				pp_expire(c, now);
				next_scan = now + scan_tsc;
				ms = pp_client_sleep_ms(c, now);
			}
			pp_intr_idle(&in, work > 0, ms, st);
		}
	}
	if (in.armed)
		pp_intr_arm(&in, false);
	st->interrupted = app_quit;
	if (c->sampling)
		st->elapsed_s = (double)(rte_rdtsc() - c->start_tsc) / rte_get_tsc_hz();
	return 0;
}

int
pp_run(const struct pp_conf *conf, struct rte_mempool *mp, struct pp_hist *h,
       struct pp_stats *st)
{
	struct pp_client c;
	uint64_t hz = rte_get_tsc_hz();
	uint32_t i;
	int ret;

	memset(st, 0, sizeof(*st));
	pp_hist_init(h);
	pp_hist_init(&st->oneway.there);
	pp_hist_init(&st->oneway.back);
	/* The PMDs registered the field at queue setup if they stamp. */
	if (conf->one_way)
		rte_mbuf_dyn_rx_timestamp_register(&pp_ts_offset, &pp_ts_flag);
	if (conf->role == PP_ROLE_SERVER)
		return pp_run_server(conf, st);

	memset(&c, 0, sizeof(c));
	c.conf = conf;
	c.mp = mp;
	c.h = h;
	c.st = st;
	c.session = (uint16_t)rte_rand();
	c.ns_per_tsc = 1e9 / (double)hz;
	c.timeout_tsc = conf->timeout_ms * hz / 1000;
	c.give_up_tsc = RTE_MAX(10 * c.timeout_tsc, (uint64_t)PP_GIVE_UP_MS * hz / 1000);
	c.slots = rte_zmalloc("pp_slots", conf->inflight * sizeof(*c.slots), 0);
	c.free = rte_malloc("pp_free", conf->inflight * sizeof(*c.free), 0);
	if (c.slots == NULL || c.free == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	/* Slot 0 on top of the stack: with one in flight, always slot 0. */
	for (i = 0; i < conf->inflight; i++)
		c.free[i] = conf->inflight - 1 - i;
	c.nb_free = conf->inflight;
	pp_frame_init(&c, conf->client_port);
	ret = pp_run_client(&c);
out:
	rte_free(c.slots);
	rte_free(c.free);
	return ret;
}
