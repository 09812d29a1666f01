/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The flow table (REFNIC_CAP_FLOW, contract 1.3): a TCAM of
 * REFNIC_EMU_FLOWS slots, each a key and a mask over the fields of struct
 * refnic_flow_key, with a priority and actions. Received frames are looked
 * up before RSS (refnic_emu_rx_frame); the admin commands FLOW_ADD, _DEL,
 * _QUERY and _FLUSH fill and read it.
 *
 * Lookup is a tuple space search (refnic_emu_flow.h): per distinct mask,
 * the frame's key under it is hashed into the buckets, whose chains hold
 * the rules of that mask; the best rank found wins. Its cost grows with the
 * masks in use, not the rules; with no rule it is one test.
 */

#include <string.h>

#include <rte_byteorder.h>

#include "refnic_emu_admin.h"
#include "refnic_emu_dma_map.h"
#include "refnic_emu_flow.h"
#include "refnic_emu_parse.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_rss.h"

#define FLOW_KEY_WORDS		(sizeof(struct refnic_flow_key) / sizeof(uint64_t))

void
refnic_emu_flows_reset(struct refnic_emu *emu)
{
	struct refnic_emu_flows *ft = &emu->flows;
	unsigned int i;

	__atomic_store_n(&ft->nb, 0, __ATOMIC_RELEASE);
	for (i = 0; i < REFNIC_EMU_FLOWS; i++)
		ft->e[i].used = 0;
	for (i = 0; i < REFNIC_EMU_FLOW_BUCKETS; i++)
		ft->bucket[i] = REFNIC_EMU_FLOW_NONE;
	for (i = 0; i < REFNIC_EMU_FLOW_MASKS; i++)
		ft->sub[i].rules = 0;
	ft->nb_sub = 0;
	ft->nb_walked = 0;
	ft->adds = 0;
	ft->gen++;
}

/* The bucket of key words k (already masked) in subtable s. */
static inline uint32_t
flow_hash(unsigned int s, const uint64_t *k)
{
	uint64_t h = s + 1;
	unsigned int w;

	for (w = 0; w < 8; w++)
		h = (h ^ k[w]) * UINT64_C(0x9e3779b97f4a7c15);
	return (uint32_t)(h >> 40) & (REFNIC_EMU_FLOW_BUCKETS - 1);
}

/* The frame's key, as the rules' specs are written (refnic_hw.h). */
static void
flow_key(const uint8_t *p, const struct refnic_pkt_hdrs *h, uint64_t *words)
{
	struct refnic_flow_key k;
	bool tagged;

	memset(&k, 0, sizeof(k));
	if (h->len >= EMU_ETH_HLEN) {
		memcpy(k.dst_mac, p, 6);
		memcpy(k.src_mac, p + 6, 6);
		memcpy(&k.ethertype, p + 12, 2);
		k.l3_type = k.ethertype;
		tagged = (p[12] << 8 | p[13]) == EMU_ETH_P_VLAN && h->len >= EMU_ETH_HLEN + 4;
		if (tagged) {
			k.layers |= REFNIC_FLOW_L_VLAN;
			memcpy(&k.vlan_tci, p + 14, 2);
			memcpy(&k.l3_type, p + 16, 2);
		}
	}
	if (h->ip_version == 4) {
		k.layers |= REFNIC_FLOW_L_IPV4;
		memcpy(k.src_ip, p + h->l3 + 12, 4);
		memcpy(k.dst_ip, p + h->l3 + 16, 4);
	} else if (h->ip_version == 6) {
		k.layers |= REFNIC_FLOW_L_IPV6;
		memcpy(k.src_ip, p + h->l3 + 8, 16);
		memcpy(k.dst_ip, p + h->l3 + 24, 16);
	}
	if (h->ip_version != 0) {
		k.ip_proto = h->proto;
		if (!h->frag && h->l4 + 4 <= h->len &&
		    (h->proto == EMU_IPPROTO_TCP || h->proto == EMU_IPPROTO_UDP)) {
			k.layers |= h->proto == EMU_IPPROTO_TCP ? REFNIC_FLOW_L_TCP :
				    REFNIC_FLOW_L_UDP;
			memcpy(&k.src_port, p + h->l4, 2);
			memcpy(&k.dst_port, p + h->l4 + 2, 2);
		}
	}
	memcpy(words, &k, sizeof(k));
}

static inline bool
flow_matches(const struct refnic_emu_flow_entry *e, const uint64_t *key)
{
	uint64_t diff = 0;
	unsigned int w;

	for (w = 0; w < FLOW_KEY_WORDS; w++)
		diff |= (key[w] & e->mask[w]) ^ e->spec[w];
	return diff == 0;
}

/*
 * The matching rule of the lowest rank above floor, or _NONE. Every index
 * read is bounded, and chains are walked at most REFNIC_EMU_FLOWS steps:
 * the table may change meanwhile (or be a far end's, through a cable).
 */
static uint16_t
flow_best(struct refnic_emu_flows *ft, const uint64_t *key, uint64_t floor)
{
	uint32_t nb_sub = RTE_MIN(__atomic_load_n(&ft->nb_sub, __ATOMIC_ACQUIRE),
				  (uint32_t)REFNIC_EMU_FLOW_MASKS);
	uint32_t nb_walked = RTE_MIN(__atomic_load_n(&ft->nb_walked, __ATOMIC_ACQUIRE),
				     (uint32_t)REFNIC_EMU_FLOWS);
	uint64_t best_rank = UINT64_MAX, k[FLOW_KEY_WORDS];
	uint16_t best = REFNIC_EMU_FLOW_NONE, id;
	uint32_t s, i, steps, w;

	for (s = 0; s < nb_sub; s++) {
		const struct refnic_emu_flow_sub *sub = &ft->sub[s];

		if (__atomic_load_n(&sub->rules, __ATOMIC_RELAXED) == 0)
			continue;
		for (w = 0; w < FLOW_KEY_WORDS; w++)
			k[w] = key[w] & sub->mask[w];
		id = __atomic_load_n(&ft->bucket[flow_hash(s, k)], __ATOMIC_ACQUIRE);
		for (steps = 0; id < REFNIC_EMU_FLOWS && steps < REFNIC_EMU_FLOWS; steps++) {
			const struct refnic_emu_flow_entry *e = &ft->e[id];
			uint64_t rank = e->rank;

			if (e->used && e->sub == s && rank > floor && rank < best_rank &&
			    memcmp(e->spec, k, sizeof(k)) == 0) {
				best = id;
				best_rank = rank;
			}
			id = __atomic_load_n(&e->next, __ATOMIC_RELAXED);
		}
	}
	/* Walked rules are in rank order: the first above floor that matches. */
	for (i = 0; i < nb_walked; i++) {
		const struct refnic_emu_flow_entry *e;

		id = __atomic_load_n(&ft->walked[i], __ATOMIC_RELAXED);
		if (id >= REFNIC_EMU_FLOWS)
			continue;
		e = &ft->e[id];
		if (e->rank >= best_rank)
			break;
		if (e->used && e->rank > floor && flow_matches(e, key)) {
			best = id;
			break;
		}
	}
	return best;
}

enum refnic_emu_flow_fate
refnic_emu_flow_lookup(struct refnic_emu *emu, const uint8_t *p, const struct refnic_pkt_hdrs *h,
		       uint32_t frame_len, struct refnic_emu_flow_verdict *v)
{
	struct refnic_emu_flows *ft = &emu->flows;
	uint64_t key[FLOW_KEY_WORDS], floor = 0;
	unsigned int n;

	v->marked = false;
	v->hashed = false;
	v->hash = 0;		/* what the completion's rss_hash says without one */
	flow_key(p, h, key);
	/* Rule by rule in rank order, as long as they pass the frame on. */
	for (n = 0; n < REFNIC_EMU_FLOWS; n++) {
		uint16_t id = flow_best(ft, key, floor);
		struct refnic_emu_flow_entry *e;
		uint16_t actions;

		if (id == REFNIC_EMU_FLOW_NONE)
			break;
		e = &ft->e[id];
		floor = e->rank;
		actions = e->actions;
		if (actions & REFNIC_FLOW_ACT_COUNT) {
			__atomic_fetch_add(&e->hits, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&e->bytes, frame_len, __ATOMIC_RELAXED);
		}
		if ((actions & REFNIC_FLOW_ACT_MARK) && !v->marked) {
			v->marked = true;
			v->mark = e->mark;
		}
		if (actions & REFNIC_FLOW_ACT_PASSTHRU)
			continue;
		if (actions & REFNIC_FLOW_ACT_DROP)
			return REFNIC_EMU_FLOW_DROP;
		if (actions & REFNIC_FLOW_ACT_QUEUE) {
			v->queue = e->queue;
			return REFNIC_EMU_FLOW_QUEUE;
		}
		if (actions & REFNIC_FLOW_ACT_RSS) {
			v->hashed = refnic_emu_rss_hash(e->rss_hash_types, e->rss_key, p, h,
							&v->hash);
			v->queue = e->reta[v->hashed ? v->hash % REFNIC_FLOW_RETA_SIZE : 0];
			return REFNIC_EMU_FLOW_QUEUE;
		}
		break;
	}
	return REFNIC_EMU_FLOW_DEFAULT;
}

/* The rule is checked whole before the slot is touched. */
static uint16_t
flow_rule_check(const struct refnic_emu *emu, const struct refnic_flow_rule *r)
{
	uint16_t fates = r->actions & REFNIC_FLOW_ACT_FATES;
	unsigned int i;

	if (r->actions & ~(REFNIC_FLOW_ACT_FATES | REFNIC_FLOW_ACT_MARK | REFNIC_FLOW_ACT_COUNT))
		return REFNIC_ADMIN_STS_INVALID;
	if (fates & (fates - 1))		/* more than one fate */
		return REFNIC_ADMIN_STS_INVALID;
	if (r->priority >= REFNIC_EMU_FLOW_PRIORITIES)
		return REFNIC_ADMIN_STS_INVALID;
	if ((r->actions & REFNIC_FLOW_ACT_QUEUE) && r->queue >= emu->params.max_queues)
		return REFNIC_ADMIN_STS_INVALID;
	if (r->actions & REFNIC_FLOW_ACT_RSS) {
		if (r->rss_hash_types & ~REFNIC_EMU_RSS_HASH_ALL)
			return REFNIC_ADMIN_STS_INVALID;
		for (i = 0; i < REFNIC_FLOW_RETA_SIZE; i++)
			if (r->reta[i] >= emu->params.max_queues)
				return REFNIC_ADMIN_STS_INVALID;
	}
	return REFNIC_ADMIN_STS_OK;
}

/* The subtable of mask: the one it has, a free one, or _MASKS (walked). */
static uint8_t
flow_sub_get(struct refnic_emu_flows *ft, const uint64_t *mask)
{
	uint32_t s, free_sub = REFNIC_EMU_FLOW_MASKS;

	for (s = 0; s < ft->nb_sub; s++) {
		if (ft->sub[s].rules == 0) {
			if (free_sub == REFNIC_EMU_FLOW_MASKS)
				free_sub = s;
		} else if (memcmp(ft->sub[s].mask, mask, sizeof(ft->sub[s].mask)) == 0) {
			return s;
		}
	}
	if (free_sub == REFNIC_EMU_FLOW_MASKS && ft->nb_sub < REFNIC_EMU_FLOW_MASKS)
		free_sub = ft->nb_sub;
	if (free_sub < REFNIC_EMU_FLOW_MASKS) {
		memcpy(ft->sub[free_sub].mask, mask, sizeof(ft->sub[free_sub].mask));
		if (free_sub == ft->nb_sub)
			__atomic_store_n(&ft->nb_sub, free_sub + 1, __ATOMIC_RELEASE);
	}
	return free_sub;
}

static uint16_t
flow_add(struct refnic_emu *emu, const struct refnic_admin_flow *cmd)
{
	struct refnic_emu_flows *ft = &emu->flows;
	const struct refnic_flow_rule *host;
	struct refnic_emu_flow_entry *e;
	struct refnic_flow_rule r;
	uint32_t nb = ft->nb, pos;
	uint16_t sts;
	unsigned int w;

	if (cmd->id >= REFNIC_EMU_FLOWS)
		return REFNIC_ADMIN_STS_NOSPC;
	if (cmd->buf.len < sizeof(r))
		return REFNIC_ADMIN_STS_INVALID;
	host = refnic_emu_dma_map(emu, cmd->buf.iova, sizeof(r));
	if (host == NULL)
		return REFNIC_ADMIN_STS_DMA_ERROR;
	r = *host;	/* one read of host memory: what is checked is what is used */
	emu_stats(emu)->dma_reads++;
	sts = flow_rule_check(emu, &r);
	if (sts != REFNIC_ADMIN_STS_OK)
		return sts;
	e = &ft->e[cmd->id];
	if (e->used)
		return REFNIC_ADMIN_STS_BUSY;

	memcpy(e->mask, &r.mask, sizeof(e->mask));
	memcpy(e->spec, &r.spec, sizeof(e->spec));
	for (w = 0; w < FLOW_KEY_WORDS; w++)
		e->spec[w] &= e->mask[w];
	e->priority = r.priority;
	e->rank = (uint64_t)r.priority << 32 | ++ft->adds;
	e->actions = r.actions;
	e->queue = r.queue;
	e->mark = r.mark;
	e->rss_hash_types = r.rss_hash_types;
	memcpy(e->rss_key, r.rss_key, sizeof(e->rss_key));
	memcpy(e->reta, r.reta, sizeof(e->reta));
	__atomic_store_n(&e->hits, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&e->bytes, 0, __ATOMIC_RELAXED);
	e->sub = flow_sub_get(ft, e->mask);
	e->used = 1;
	if (e->sub < REFNIC_EMU_FLOW_MASKS) {
		uint32_t b = flow_hash(e->sub, e->spec);

		ft->sub[e->sub].rules++;
		e->next = ft->bucket[b];
		__atomic_store_n(&ft->bucket[b], (uint16_t)cmd->id, __ATOMIC_RELEASE);
	} else {
		/* After the rules of its priority and above: ranks grow. */
		uint32_t nbw = ft->nb_walked;

		for (pos = nbw; pos > 0 && ft->e[ft->walked[pos - 1]].rank > e->rank; pos--)
			;
		for (w = nbw; w > pos; w--)
			__atomic_store_n(&ft->walked[w], ft->walked[w - 1], __ATOMIC_RELAXED);
		__atomic_store_n(&ft->walked[pos], (uint16_t)cmd->id, __ATOMIC_RELAXED);
		__atomic_store_n(&ft->nb_walked, nbw + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&ft->nb, nb + 1, __ATOMIC_RELEASE);
	ft->gen++;
	return REFNIC_ADMIN_STS_OK;
}

static uint16_t
flow_del(struct refnic_emu *emu, uint32_t id)
{
	struct refnic_emu_flows *ft = &emu->flows;
	struct refnic_emu_flow_entry *e;
	uint32_t i;

	if (id >= REFNIC_EMU_FLOWS || !ft->e[id].used)
		return REFNIC_ADMIN_STS_NOT_FOUND;
	e = &ft->e[id];
	if (e->sub < REFNIC_EMU_FLOW_MASKS) {
		uint16_t *link = &ft->bucket[flow_hash(e->sub, e->spec)];

		/* A walk under way on this slot goes on along its old next. */
		while (*link != id && *link < REFNIC_EMU_FLOWS)
			link = &ft->e[*link].next;
		if (*link == id)
			__atomic_store_n(link, e->next, __ATOMIC_RELEASE);
		ft->sub[e->sub].rules--;
	} else {
		uint32_t nbw = ft->nb_walked;

		for (i = 0; i < nbw && ft->walked[i] != id; i++)
			;
		for (; i + 1 < nbw; i++)
			__atomic_store_n(&ft->walked[i], ft->walked[i + 1], __ATOMIC_RELAXED);
		if (nbw > 0)
			__atomic_store_n(&ft->nb_walked, nbw - 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&ft->nb, ft->nb - 1, __ATOMIC_RELEASE);
	e->used = 0;
	ft->gen++;
	return REFNIC_ADMIN_STS_OK;
}

static uint16_t
flow_query(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd)
{
	const struct refnic_admin_flow *fc = &cmd->flow;
	struct refnic_flow_counters c;
	struct refnic_emu_flow_entry *e;

	if (fc->id >= REFNIC_EMU_FLOWS || !emu->flows.e[fc->id].used)
		return REFNIC_ADMIN_STS_NOT_FOUND;
	e = &emu->flows.e[fc->id];
	memset(&c, 0, sizeof(c));
	c.id = fc->id;
	c.hits = __atomic_load_n(&e->hits, __ATOMIC_RELAXED);
	c.bytes = __atomic_load_n(&e->bytes, __ATOMIC_RELAXED);
	return refnic_emu_admin_dma_to_host(emu, cmd, &c, sizeof(c));
}

uint16_t
refnic_emu_admin_flow(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd)
{
	if (!emu_has_cap(emu, REFNIC_CAP_FLOW))
		return REFNIC_ADMIN_STS_UNSUPPORTED;	/* caps_off=flow */
	switch (cmd->opcode) {
	case REFNIC_ADMIN_FLOW_ADD:
		return flow_add(emu, &cmd->flow);
	case REFNIC_ADMIN_FLOW_DEL:
		return flow_del(emu, cmd->flow.id);
	case REFNIC_ADMIN_FLOW_QUERY:
		return flow_query(emu, cmd);
	case REFNIC_ADMIN_FLOW_FLUSH:
		refnic_emu_flows_reset(emu);
		return REFNIC_ADMIN_STS_OK;
	default:
		return REFNIC_ADMIN_STS_UNSUPPORTED;
	}
}
