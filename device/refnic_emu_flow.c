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
 * Lookup is a linear walk of the slots in priority order, eight 64-bit
 * masked compares per rule, as a TCAM does in parallel: its cost grows with
 * the rules installed, and is nothing (one test) with none.
 */

#include <string.h>

#include <rte_byteorder.h>

#include "refnic_emu_priv.h"

#define FLOW_KEY_WORDS		(sizeof(struct refnic_flow_key) / sizeof(uint64_t))

void
refnic_emu_flows_reset(struct refnic_emu *emu)
{
	struct refnic_emu_flows *ft = &emu->flows;
	unsigned int i;

	__atomic_store_n(&ft->nb, 0, __ATOMIC_RELEASE);
	for (i = 0; i < REFNIC_EMU_FLOWS; i++)
		ft->e[i].used = 0;
	ft->gen++;
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

enum refnic_emu_flow_fate
refnic_emu_flow_lookup(struct refnic_emu *emu, const uint8_t *p, const struct refnic_pkt_hdrs *h,
		       uint32_t frame_len, struct refnic_emu_flow_verdict *v)
{
	struct refnic_emu_flows *ft = &emu->flows;
	uint32_t nb = RTE_MIN(__atomic_load_n(&ft->nb, __ATOMIC_ACQUIRE),
			      (uint32_t)REFNIC_EMU_FLOWS);
	uint64_t key[FLOW_KEY_WORDS];
	uint32_t i;

	v->marked = false;
	v->hashed = false;
	v->hash = 0;		/* what the completion's rss_hash says without one */
	flow_key(p, h, key);
	for (i = 0; i < nb; i++) {
		/* Read once: the admin processor may move it meanwhile. */
		uint16_t id = __atomic_load_n(&ft->order[i], __ATOMIC_RELAXED);
		struct refnic_emu_flow_entry *e;
		uint16_t actions;

		if (id >= REFNIC_EMU_FLOWS)
			continue;
		e = &ft->e[id];
		if (!e->used || !flow_matches(e, key))
			continue;
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
		return REFNIC_EMU_FLOW_DEFAULT;
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
	host = refnic_dma_map(emu, cmd->buf.iova, sizeof(r));
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
	e->actions = r.actions;
	e->queue = r.queue;
	e->mark = r.mark;
	e->rss_hash_types = r.rss_hash_types;
	memcpy(e->rss_key, r.rss_key, sizeof(e->rss_key));
	memcpy(e->reta, r.reta, sizeof(e->reta));
	__atomic_store_n(&e->hits, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&e->bytes, 0, __ATOMIC_RELAXED);
	e->used = 1;

	/* After the rules of its priority and above, before the rest. */
	for (pos = nb; pos > 0 && ft->e[ft->order[pos - 1]].priority > r.priority; pos--)
		;
	/* Shift from the end, so that a walk under way sees every index valid. */
	for (w = nb; w > pos; w--)
		__atomic_store_n(&ft->order[w], ft->order[w - 1], __ATOMIC_RELAXED);
	__atomic_store_n(&ft->order[pos], (uint16_t)cmd->id, __ATOMIC_RELAXED);
	__atomic_store_n(&ft->nb, nb + 1, __ATOMIC_RELEASE);
	ft->gen++;
	return REFNIC_ADMIN_STS_OK;
}

static uint16_t
flow_del(struct refnic_emu *emu, uint32_t id)
{
	struct refnic_emu_flows *ft = &emu->flows;
	uint32_t nb = ft->nb, i;

	if (id >= REFNIC_EMU_FLOWS || !ft->e[id].used)
		return REFNIC_ADMIN_STS_NOT_FOUND;
	for (i = 0; i < nb && ft->order[i] != id; i++)
		;
	for (; i + 1 < nb; i++)
		__atomic_store_n(&ft->order[i], ft->order[i + 1], __ATOMIC_RELAXED);
	__atomic_store_n(&ft->nb, nb - 1, __ATOMIC_RELEASE);
	ft->e[id].used = 0;
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
	if (!(emu_reg_read(emu, REFNIC_REG_CAPS_LO) & REFNIC_CAP_FLOW))
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
