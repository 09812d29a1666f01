/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * rte_flow on the device's flow table (REFNIC_CAP_FLOW, refnic_hw.h).
 *
 * A rule is parsed once into the struct refnic_flow_rule FLOW_ADD sends;
 * whatever the device cannot do is refused there, so at validate, with a
 * message naming the item or action. The driver keeps every rule (the
 * device forgets its table at a reset) and programs them all again at the
 * first start after one: rte_eth_dev_reset() then start, or a recovery.
 * Device slots are the driver's to choose: a full table is known before
 * the device is asked (ENOSPC).
 *
 * Counters: the device counts from FLOW_ADD; the driver reports its count
 * plus an offset, which a query with reset and a replay (whose device
 * count starts again at 0) move, so that a rule's count goes on across a
 * reset, less what the device counted after the last query before it.
 * A FLOW_QUERY reply is untrusted: it must name the slot asked about, and
 * not go back nor grow by more bytes than its frames can hold.
 *
 * Isolated mode is a catch-all DROP rule in the lowest priority, which the
 * driver keeps out of reach of the application's rules.
 */

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>

#include <rte_flow.h>
#include <rte_flow_driver.h>
#include <rte_malloc.h>

#include "refnic.h"

struct rte_flow {
	TAILQ_ENTRY(rte_flow) next;
	uint32_t slot;			/* the device's slot */
	struct refnic_flow_rule rule;	/* what FLOW_ADD sends, again at replay */
	/* Reported counts: the device's + off (mod 2^64); last: the last
	 * device reading since the rule was (re)programmed. */
	uint64_t hits_off, bytes_off;
	uint64_t hits_last, bytes_last;
};

/* rte_flow_error messages outlive the call: one buffer per thread. */
static __thread char flow_errmsg[160];

static int __rte_format_printf(5, 6)
flow_error(struct rte_flow_error *error, int code, enum rte_flow_error_type type,
	   const void *cause, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(flow_errmsg, sizeof(flow_errmsg), fmt, ap);
	va_end(ap);
	return rte_flow_error_set(error, code, type, cause, flow_errmsg);
}

/* An item's or action's name as testpmd's flow command spells it ("ipv4"). */
static const char *
flow_name(enum rte_flow_conv_op op, int type)
{
	static __thread char buf[32];
	const char *name = NULL;
	size_t i;

	if (rte_flow_conv(op, &name, sizeof(name), (void *)(uintptr_t)type, NULL) < 0 ||
	    name == NULL)
		return "unknown";
	for (i = 0; name[i] != '\0' && i < sizeof(buf) - 1; i++)
		buf[i] = tolower((unsigned char)name[i]);
	buf[i] = '\0';
	return buf;
}

static const char *
item_name(enum rte_flow_item_type type)
{
	return flow_name(RTE_FLOW_CONV_OP_ITEM_NAME_PTR, type);
}

static const char *
action_name(enum rte_flow_action_type type)
{
	return flow_name(RTE_FLOW_CONV_OP_ACTION_NAME_PTR, type);
}

/* Bits of mask outside allowed (same layout, len bytes): the device cannot match them. */
static bool
mask_beyond(const void *mask, const void *allowed, size_t len)
{
	const uint8_t *m = mask, *a = allowed;
	size_t i;

	for (i = 0; i < len; i++)
		if (m[i] & ~a[i])
			return true;
	return false;
}

/* Layers of a pattern, in the order they must come. */
enum flow_layer { LAYER_NONE, LAYER_ETH, LAYER_VLAN, LAYER_L3, LAYER_L4 };

struct item_desc {
	enum flow_layer layer;
	size_t size;
	const void *default_mask;
	const char *fields;	/* what can be matched, for the message */
};

static const struct rte_flow_item_eth eth_allowed = {
	.hdr.dst_addr.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	.hdr.src_addr.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	.hdr.ether_type = RTE_BE16(0xffff),
	.has_vlan = 1,
};
static const struct rte_flow_item_vlan vlan_allowed = {
	.hdr.vlan_tci = RTE_BE16(0xffff),
	.hdr.eth_proto = RTE_BE16(0xffff),
};
static const struct rte_flow_item_ipv4 ipv4_allowed = {
	.hdr.src_addr = RTE_BE32(0xffffffff),
	.hdr.dst_addr = RTE_BE32(0xffffffff),
	.hdr.next_proto_id = 0xff,
};
static const struct rte_flow_item_ipv6 ipv6_allowed = {
	.hdr.src_addr = REFNIC_IPV6_MASK_FULL,
	.hdr.dst_addr = REFNIC_IPV6_MASK_FULL,
	.hdr.proto = 0xff,
};
static const struct rte_flow_item_tcp tcp_allowed = {
	.hdr.src_port = RTE_BE16(0xffff),
	.hdr.dst_port = RTE_BE16(0xffff),
};
static const struct rte_flow_item_udp udp_allowed = {
	.hdr.src_port = RTE_BE16(0xffff),
	.hdr.dst_port = RTE_BE16(0xffff),
};

static const struct {
	struct item_desc d;
	const void *allowed;
} item_descs[] = {
	[RTE_FLOW_ITEM_TYPE_ETH] = { { LAYER_ETH, sizeof(struct rte_flow_item_eth),
		&rte_flow_item_eth_mask, "dst, src, type, has_vlan" }, &eth_allowed },
	[RTE_FLOW_ITEM_TYPE_VLAN] = { { LAYER_VLAN, sizeof(struct rte_flow_item_vlan),
		&rte_flow_item_vlan_mask, "tci, inner_type" }, &vlan_allowed },
	[RTE_FLOW_ITEM_TYPE_IPV4] = { { LAYER_L3, sizeof(struct rte_flow_item_ipv4),
		&rte_flow_item_ipv4_mask, "src, dst, proto" }, &ipv4_allowed },
	[RTE_FLOW_ITEM_TYPE_IPV6] = { { LAYER_L3, sizeof(struct rte_flow_item_ipv6),
		&rte_flow_item_ipv6_mask, "src, dst, proto" }, &ipv6_allowed },
	[RTE_FLOW_ITEM_TYPE_TCP] = { { LAYER_L4, sizeof(struct rte_flow_item_tcp),
		&rte_flow_item_tcp_mask, "src, dst (ports)" }, &tcp_allowed },
	[RTE_FLOW_ITEM_TYPE_UDP] = { { LAYER_L4, sizeof(struct rte_flow_item_udp),
		&rte_flow_item_udp_mask, "src, dst (ports)" }, &udp_allowed },
};

/* Set bytes of the key (spec and mask) from an item's field. */
static void
key_set(struct refnic_flow_rule *r, size_t off, const void *spec, const void *mask, size_t len)
{
	uint8_t *s = (uint8_t *)&r->spec + off, *m = (uint8_t *)&r->mask + off;
	const uint8_t *sv = spec, *mv = mask;
	size_t i;

	for (i = 0; i < len; i++) {
		m[i] |= mv[i];
		s[i] = (s[i] & ~mv[i]) | (sv[i] & mv[i]);
	}
}

#define KEY_SET(r, field, spec, mask) \
	key_set(r, offsetof(struct refnic_flow_key, field), spec, mask, \
		sizeof(((struct refnic_flow_key *)0)->field))

static void
layer_require(struct refnic_flow_rule *r, uint8_t layer)
{
	r->spec.layers |= layer;
	r->mask.layers |= layer;
}

/* What an item, its checks passed, asks of the frame: the key's fields and
 * layers in the rule's spec and mask. */
static void
flow_item_to_key(enum rte_flow_item_type type, const uint8_t *spec, const uint8_t *mask,
		 struct refnic_flow_rule *r)
{
	switch (type) {
	case RTE_FLOW_ITEM_TYPE_ETH: {
		const struct rte_flow_item_eth *s = (const void *)spec, *m = (const void *)mask;

		KEY_SET(r, dst_mac, &s->hdr.dst_addr, &m->hdr.dst_addr);
		KEY_SET(r, src_mac, &s->hdr.src_addr, &m->hdr.src_addr);
		KEY_SET(r, ethertype, &s->hdr.ether_type, &m->hdr.ether_type);
		if (m->has_vlan) {
			r->mask.layers |= REFNIC_FLOW_L_VLAN;
			if (s->has_vlan)
				r->spec.layers |= REFNIC_FLOW_L_VLAN;
		}
		break;
	}
	case RTE_FLOW_ITEM_TYPE_VLAN: {
		const struct rte_flow_item_vlan *s = (const void *)spec, *m = (const void *)mask;

		layer_require(r, REFNIC_FLOW_L_VLAN);
		KEY_SET(r, vlan_tci, &s->hdr.vlan_tci, &m->hdr.vlan_tci);
		KEY_SET(r, l3_type, &s->hdr.eth_proto, &m->hdr.eth_proto);
		break;
	}
	case RTE_FLOW_ITEM_TYPE_IPV4: {
		const struct rte_flow_item_ipv4 *s = (const void *)spec, *m = (const void *)mask;

		layer_require(r, REFNIC_FLOW_L_IPV4);
		key_set(r, offsetof(struct refnic_flow_key, src_ip), &s->hdr.src_addr,
			&m->hdr.src_addr, 4);
		key_set(r, offsetof(struct refnic_flow_key, dst_ip), &s->hdr.dst_addr,
			&m->hdr.dst_addr, 4);
		KEY_SET(r, ip_proto, &s->hdr.next_proto_id, &m->hdr.next_proto_id);
		break;
	}
	case RTE_FLOW_ITEM_TYPE_IPV6: {
		const struct rte_flow_item_ipv6 *s = (const void *)spec, *m = (const void *)mask;

		layer_require(r, REFNIC_FLOW_L_IPV6);
		KEY_SET(r, src_ip, REFNIC_IPV6_BYTES(s->hdr.src_addr),
			REFNIC_IPV6_BYTES(m->hdr.src_addr));
		KEY_SET(r, dst_ip, REFNIC_IPV6_BYTES(s->hdr.dst_addr),
			REFNIC_IPV6_BYTES(m->hdr.dst_addr));
		KEY_SET(r, ip_proto, &s->hdr.proto, &m->hdr.proto);
		break;
	}
	case RTE_FLOW_ITEM_TYPE_TCP:
	case RTE_FLOW_ITEM_TYPE_UDP: {
		/* Both start with the two ports. */
		const struct rte_udp_hdr *s = (const void *)spec, *m = (const void *)mask;

		layer_require(r, type == RTE_FLOW_ITEM_TYPE_TCP ? REFNIC_FLOW_L_TCP :
			      REFNIC_FLOW_L_UDP);
		KEY_SET(r, src_port, &s->src_port, &m->src_port);
		KEY_SET(r, dst_port, &s->dst_port, &m->dst_port);
		break;
	}
	default:
		break;
	}
}

static int
flow_parse_item(const struct rte_flow_item *item, struct refnic_flow_rule *r,
		struct rte_flow_error *error)
{
	const struct item_desc *d = &item_descs[item->type].d;
	const uint8_t *spec = item->spec, *mask = item->mask;
	const char *name = item_name(item->type);
	uint8_t zero[sizeof(struct rte_flow_item_ipv6)] = { 0 };

	if (mask == NULL)
		mask = d->default_mask;
	if (spec == NULL) {
		/* Present, whatever it holds; a mask without a spec means nothing. */
		spec = zero;
		mask = zero;
	}
	if (item->last != NULL && memcmp(item->last, spec, d->size) != 0)
		return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_LAST, item,
				  "item %s: ranges (last) are not supported", name);
	if (mask_beyond(mask, item_descs[item->type].allowed, d->size))
		return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK, item,
				  "item %s: the device matches %s only", name, d->fields);

	flow_item_to_key(item->type, spec, mask, r);
	return 0;
}

static int
flow_parse_pattern(const struct rte_flow_item pattern[], struct refnic_flow_rule *r,
		   struct rte_flow_error *error)
{
	enum flow_layer last = LAYER_NONE;
	const struct rte_flow_item *item;
	int ret;

	if (pattern == NULL)
		return flow_error(error, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_NUM, NULL,
				  "no pattern");
	for (item = pattern; item->type != RTE_FLOW_ITEM_TYPE_END; item++) {
		if (item->type == RTE_FLOW_ITEM_TYPE_VOID)
			continue;
		if ((unsigned int)item->type >= RTE_DIM(item_descs) ||
		    item_descs[item->type].d.layer == LAYER_NONE)
			return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM, item,
					  "item %s: the device does not match on it (it matches "
					  "eth, vlan, ipv4, ipv6, tcp, udp)",
					  item_name(item->type));
		if (item_descs[item->type].d.layer <= last)
			return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM, item,
					  "item %s: out of order or repeated (the device "
					  "looks at eth, one vlan, one IP header, one of tcp/udp)",
					  item_name(item->type));
		last = item_descs[item->type].d.layer;
		ret = flow_parse_item(item, r, error);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* RSS types the device hashes, and those it hashes as part of them. */
static const struct {
	uint64_t rss_hf;
	uint64_t as;
} rss_aliases[] = {
	{ RTE_ETH_RSS_FRAG_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_OTHER, RTE_ETH_RSS_IPV4 },
	{ RTE_ETH_RSS_FRAG_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_OTHER | RTE_ETH_RSS_IPV6_EX,
	  RTE_ETH_RSS_IPV6 },
	{ RTE_ETH_RSS_IPV6_TCP_EX, RTE_ETH_RSS_NONFRAG_IPV6_TCP },
	{ RTE_ETH_RSS_IPV6_UDP_EX, RTE_ETH_RSS_NONFRAG_IPV6_UDP },
};

static int
flow_parse_rss(struct rte_eth_dev *dev, const struct rte_flow_action *act,
	       struct refnic_flow_rule *r, struct rte_flow_error *error)
{
	const struct rte_flow_action_rss *rss = act->conf;
	struct refnic_adapter *ad = refnic_adapter(dev);
	uint64_t types, known = refnic_rss_offloads();
	unsigned int i;

	if (rss == NULL)
		return flow_error(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				  "action rss: no configuration");
	if (!(ad->ident.caps & REFNIC_CAP_RSS))
		return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
				  "action rss: the device has no RSS");
	if (rss->func != RTE_ETH_HASH_FUNCTION_DEFAULT &&
	    rss->func != RTE_ETH_HASH_FUNCTION_TOEPLITZ)
		return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				  "action rss: the device hashes with Toeplitz only");
	if (rss->level > 1)
		return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				  "action rss: level %u: the device hashes outer headers only",
				  rss->level);
	types = rss->types != 0 ? rss->types : known;
	for (i = 0; i < RTE_DIM(rss_aliases); i++)
		if (types & rss_aliases[i].rss_hf)
			types = (types & ~rss_aliases[i].rss_hf) | rss_aliases[i].as;
	if (types & ~known)
		return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				  "action rss: types 0x%" PRIx64 " are not hashed by the device "
				  "(it hashes 0x%" PRIx64 ")", types & ~known, known);
	if (rss->key_len != 0 && rss->key_len != REFNIC_RSS_KEY_SIZE)
		return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				  "action rss: a key of %u bytes, the device takes %u (or none: "
				  "the port's)", rss->key_len, REFNIC_RSS_KEY_SIZE);
	if (rss->queue_num == 0 || rss->queue_num > REFNIC_FLOW_RETA_SIZE || rss->queue == NULL)
		return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				  "action rss: %u queues, the device spreads over 1 to %u",
				  rss->queue_num, REFNIC_FLOW_RETA_SIZE);
	for (i = 0; i < rss->queue_num; i++)
		if (rss->queue[i] >= dev->data->nb_rx_queues)
			return flow_error(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
					  "action rss: queue %u: the port has %u Rx queues",
					  rss->queue[i], dev->data->nb_rx_queues);
	r->rss_hash_types = refnic_rss_hf_to_hw(types);
	memcpy(r->rss_key, rss->key_len != 0 ? rss->key : ad->rss.key, REFNIC_RSS_KEY_SIZE);
	/* The rule's own redirection table: the queues in turn, as mlx5 fills its. */
	for (i = 0; i < REFNIC_FLOW_RETA_SIZE; i++)
		r->reta[i] = rss->queue[i % rss->queue_num];
	return 0;
}

static int
flow_parse_actions(struct rte_eth_dev *dev, const struct rte_flow_action actions[],
		   struct refnic_flow_rule *r, struct rte_flow_error *error)
{
	const struct rte_flow_action *act;
	uint16_t bit;
	int ret;

	if (actions == NULL)
		return flow_error(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_NUM, NULL,
				  "no actions");
	for (act = actions; act->type != RTE_FLOW_ACTION_TYPE_END; act++) {
		switch (act->type) {
		case RTE_FLOW_ACTION_TYPE_VOID:
			continue;
		case RTE_FLOW_ACTION_TYPE_DROP:
			bit = REFNIC_FLOW_ACT_DROP;
			break;
		case RTE_FLOW_ACTION_TYPE_PASSTHRU:
			bit = REFNIC_FLOW_ACT_PASSTHRU;
			break;
		case RTE_FLOW_ACTION_TYPE_QUEUE: {
			const struct rte_flow_action_queue *q = act->conf;

			if (q == NULL || q->index >= dev->data->nb_rx_queues)
				return flow_error(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
						  act, "action queue: index %u: the port has %u "
						  "Rx queues", q != NULL ? q->index : 0,
						  dev->data->nb_rx_queues);
			r->queue = q->index;
			bit = REFNIC_FLOW_ACT_QUEUE;
			break;
		}
		case RTE_FLOW_ACTION_TYPE_RSS:
			ret = flow_parse_rss(dev, act, r, error);
			if (ret != 0)
				return ret;
			bit = REFNIC_FLOW_ACT_RSS;
			break;
		case RTE_FLOW_ACTION_TYPE_MARK: {
			const struct rte_flow_action_mark *mark = act->conf;

			if (mark == NULL)
				return flow_error(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
						  act, "action mark: no id");
			r->mark = mark->id;
			bit = REFNIC_FLOW_ACT_MARK;
			break;
		}
		case RTE_FLOW_ACTION_TYPE_COUNT:
			bit = REFNIC_FLOW_ACT_COUNT;
			break;
		case RTE_FLOW_ACTION_TYPE_JUMP:
			return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
					  "action jump: the device has one table (group 0)");
		default:
			return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
					  "action %s: the device cannot do it (it does queue, "
					  "drop, rss, passthru, mark, count)",
					  action_name(act->type));
		}
		if (r->actions & bit)
			return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
					  "action %s: given twice", action_name(act->type));
		if ((bit & REFNIC_FLOW_ACT_FATES) && (r->actions & REFNIC_FLOW_ACT_FATES))
			return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
					  "action %s: a rule has one fate (queue, drop, rss "
					  "or passthru)", action_name(act->type));
		r->actions |= bit;
	}
	return 0;
}

/* Refusals that concern the port, not the rule. */
static int
flow_port_check(struct rte_eth_dev *dev, struct rte_flow_error *error)
{
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return flow_error(error, E_RTE_SECONDARY, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				  "port %u: flow rules belong to the primary process",
				  dev->data->port_id);
	if (!(refnic_adapter(dev)->ident.caps & REFNIC_CAP_FLOW))
		return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				  "port %u: the device has no flow table", dev->data->port_id);
	return 0;
}

/* The whole rule into r, or the reason the device cannot do it. */
static int
flow_parse(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
	   const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
	   struct refnic_flow_rule *r, struct rte_flow_error *error)
{
	const struct refnic_identify *id = &refnic_adapter(dev)->ident;
	int ret = flow_port_check(dev, error);

	if (ret != 0)
		return ret;
	memset(r, 0, sizeof(*r));
	if (attr == NULL)
		return flow_error(error, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR, NULL, "no attributes");
	if (attr->egress)
		return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_EGRESS, attr,
				  "egress: the device classifies received frames only");
	if (attr->transfer)
		return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_TRANSFER, attr,
				  "transfer: the device has no switch");
	if (!attr->ingress)
		return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_INGRESS, attr,
				  "ingress rules only");
	if (attr->group != 0)
		return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_GROUP, attr,
				  "group %u: the device has one table (group 0)", attr->group);
	/* The last level is isolated mode's catch-all. */
	if (attr->priority + 1 >= id->flow_priorities)
		return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY, attr,
				  "priority %u: the device has levels 0 to %d", attr->priority,
				  (int)id->flow_priorities - 2);
	r->priority = attr->priority;
	ret = flow_parse_pattern(pattern, r, error);
	if (ret == 0)
		ret = flow_parse_actions(dev, actions, r, error);
	return ret;
}

/* -------------------------------------------------------------------------
 * The device's table
 */

static uint32_t
flow_slots_max(const struct refnic_adapter *ad)
{
	return RTE_MIN((uint32_t)ad->ident.max_flows, (uint32_t)REFNIC_MAX_FLOWS);
}

static int
slot_take(struct refnic_adapter *ad, uint32_t *slot)
{
	uint32_t i, max = flow_slots_max(ad);

	for (i = 0; i < max; i++) {
		if (!(ad->flows.slots[i / 64] & (UINT64_C(1) << (i % 64)))) {
			ad->flows.slots[i / 64] |= UINT64_C(1) << (i % 64);
			*slot = i;
			return 0;
		}
	}
	return -ENOSPC;
}

static void
slot_free(struct refnic_adapter *ad, uint32_t slot)
{
	ad->flows.slots[slot / 64] &= ~(UINT64_C(1) << (slot % 64));
}

/* Does the device hold the driver's rules (no reset since it was given them)? */
static bool
flows_in_device(struct refnic_adapter *ad)
{
	return ad->flows.synced &&
	       refnic_reg_read(&ad->hw, REFNIC_REG_RESET_GEN) == ad->flows.synced_gen;
}

static int
hw_flow_add(struct refnic_adapter *ad, uint32_t slot, struct refnic_flow_rule *r)
{
	struct refnic_admin_cmd cmd = { .opcode = REFNIC_ADMIN_FLOW_ADD };

	cmd.flow.id = slot;
	return refnic_admin_exec_buf(ad, &cmd, r, sizeof(*r), true);
}

static int
hw_flow_del(struct refnic_adapter *ad, uint32_t slot)
{
	struct refnic_admin_cmd cmd = { .opcode = REFNIC_ADMIN_FLOW_DEL };

	cmd.flow.id = slot;
	return refnic_admin_exec(ad, &cmd, NULL);
}

static int
hw_flow_flush(struct refnic_adapter *ad)
{
	struct refnic_admin_cmd cmd = { .opcode = REFNIC_ADMIN_FLOW_FLUSH };

	return refnic_admin_exec(ad, &cmd, NULL);
}

/* Isolated mode's rule: every frame, the lowest priority, dropped. */
static void
isolate_rule(const struct refnic_adapter *ad, struct refnic_flow_rule *r)
{
	memset(r, 0, sizeof(*r));
	r->priority = ad->ident.flow_priorities - 1;
	r->actions = REFNIC_FLOW_ACT_DROP;
}

int
refnic_flows_restore(struct rte_eth_dev *dev)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct refnic_flow_rule r;
	struct rte_flow *flow;
	uint32_t gen;
	int ret = 0;

	if (!(ad->ident.caps & REFNIC_CAP_FLOW))
		return 0;
	pthread_mutex_lock(&ad->flows.lock);
	if (flows_in_device(ad))
		goto out;
	gen = refnic_reg_read(&ad->hw, REFNIC_REG_RESET_GEN);
	ad->flows.synced = false;
	ret = hw_flow_flush(ad);
	TAILQ_FOREACH(flow, &ad->flows.list, next) {
		if (ret != 0)
			break;
		ret = hw_flow_add(ad, flow->slot, &flow->rule);
		/* Its count goes on from the last one read. */
		flow->hits_off += flow->hits_last;
		flow->bytes_off += flow->bytes_last;
		flow->hits_last = flow->bytes_last = 0;
	}
	if (ret == 0 && ad->flows.isolated) {
		isolate_rule(ad, &r);
		ret = hw_flow_add(ad, ad->flows.isolate_slot, &r);
	}
	if (ret == 0) {
		ad->flows.synced = true;
		ad->flows.synced_gen = gen;
		if (ad->flows.nb != 0)
			PMD_DRV_LOG(INFO, "port %u: %u flow rules programmed again",
				    dev->data->port_id, ad->flows.nb);
	} else {
		PMD_DRV_LOG(ERR, "port %u: flow rules not programmed again: %s",
			    dev->data->port_id, rte_strerror(-ret));
	}
out:
	pthread_mutex_unlock(&ad->flows.lock);
	return ret;
}

/* -------------------------------------------------------------------------
 * rte_flow_ops
 */

static int
refnic_flow_validate(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
		     const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
		     struct rte_flow_error *error)
{
	struct refnic_flow_rule r;

	return flow_parse(dev, attr, pattern, actions, &r, error);
}

static struct rte_flow *
refnic_flow_create(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
		   const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
		   struct rte_flow_error *error)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct rte_flow *flow;
	int ret;

	flow = rte_zmalloc("refnic_flow", sizeof(*flow), 0);
	if (flow == NULL) {
		flow_error(error, ENOMEM, RTE_FLOW_ERROR_TYPE_HANDLE, NULL, "out of memory");
		return NULL;
	}
	if (flow_parse(dev, attr, pattern, actions, &flow->rule, error) != 0) {
		rte_free(flow);
		return NULL;
	}
	pthread_mutex_lock(&ad->flows.lock);
	ret = slot_take(ad, &flow->slot);
	if (ret != 0) {
		flow_error(error, ENOSPC, RTE_FLOW_ERROR_TYPE_HANDLE, NULL,
			   "port %u: the flow table is full (%u rules%s)", dev->data->port_id,
			   flow_slots_max(ad), ad->flows.isolated ?
			   ", one of them isolated mode's" : "");
		goto fail;
	}
	/* A device reset since: the next start programs them all. */
	if (flows_in_device(ad)) {
		ret = hw_flow_add(ad, flow->slot, &flow->rule);
		if (ret != 0) {
			slot_free(ad, flow->slot);
			flow_error(error, -ret, RTE_FLOW_ERROR_TYPE_HANDLE, NULL,
				   "port %u: the device did not take the rule: %s",
				   dev->data->port_id, rte_strerror(-ret));
			goto fail;
		}
	}
	TAILQ_INSERT_TAIL(&ad->flows.list, flow, next);
	ad->flows.nb++;
	pthread_mutex_unlock(&ad->flows.lock);
	return flow;
fail:
	pthread_mutex_unlock(&ad->flows.lock);
	rte_free(flow);
	return NULL;
}

/* Off the device (if it has it) and out of the list; the lock held. */
static int
flow_remove(struct refnic_adapter *ad, struct rte_flow *flow)
{
	int ret = flows_in_device(ad) ? hw_flow_del(ad, flow->slot) : 0;

	/* Not there, or a device that failed (its next reset empties it):
	 * the rule is gone either way. */
	if (ret != 0 && ret != -ENOENT && !refnic_port_failed(ad))
		return ret;
	TAILQ_REMOVE(&ad->flows.list, flow, next);
	ad->flows.nb--;
	slot_free(ad, flow->slot);
	rte_free(flow);
	return 0;
}

static int
refnic_flow_destroy(struct rte_eth_dev *dev, struct rte_flow *flow,
		    struct rte_flow_error *error)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct rte_flow *f;
	int ret = flow_port_check(dev, error);

	if (ret != 0)
		return ret;
	pthread_mutex_lock(&ad->flows.lock);
	TAILQ_FOREACH(f, &ad->flows.list, next)
		if (f == flow)
			break;
	ret = f == NULL ? -ENOENT : flow_remove(ad, f);
	pthread_mutex_unlock(&ad->flows.lock);
	if (ret != 0)
		return flow_error(error, -ret, RTE_FLOW_ERROR_TYPE_HANDLE, flow,
				  "port %u: %s", dev->data->port_id, ret == -ENOENT ?
				  "no such rule on this port" : rte_strerror(-ret));
	return 0;
}

static int
refnic_flow_flush(struct rte_eth_dev *dev, struct rte_flow_error *error)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct refnic_flow_rule r;
	struct rte_flow *flow;
	int ret = flow_port_check(dev, error);

	if (ret != 0)
		return ret;
	pthread_mutex_lock(&ad->flows.lock);
	if (flows_in_device(ad)) {
		ret = hw_flow_flush(ad);
		/* Isolated mode stays (rte_flow_isolate() ends it). */
		if (ret == 0 && ad->flows.isolated) {
			isolate_rule(ad, &r);
			ret = hw_flow_add(ad, ad->flows.isolate_slot, &r);
		}
	}
	if (ret == 0 || refnic_port_failed(ad)) {
		while ((flow = TAILQ_FIRST(&ad->flows.list)) != NULL) {
			TAILQ_REMOVE(&ad->flows.list, flow, next);
			slot_free(ad, flow->slot);
			rte_free(flow);
		}
		ad->flows.nb = 0;
		ret = 0;
	}
	pthread_mutex_unlock(&ad->flows.lock);
	if (ret != 0)
		return flow_error(error, -ret, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				  "port %u: flush: %s", dev->data->port_id, rte_strerror(-ret));
	return 0;
}

/* The device's counts of a rule, checked; the lock held. */
static int
flow_counters_read(struct rte_eth_dev *dev, struct rte_flow *flow)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct refnic_admin_cmd cmd = { .opcode = REFNIC_ADMIN_FLOW_QUERY };
	struct refnic_flow_counters c;
	char what[128];
	uint64_t dh, db;
	int ret;

	if (!flows_in_device(ad))	/* reset since: the last count stands */
		return 0;
	cmd.flow.id = flow->slot;
	ret = refnic_admin_exec_buf(ad, &cmd, &c, sizeof(c), false);
	if (ret != 0)
		return ret;
	dh = c.hits - flow->hits_last;
	db = c.bytes - flow->bytes_last;
	if (c.id != flow->slot)
		snprintf(what, sizeof(what), "counters of slot %u, slot %u asked for",
			 c.id, flow->slot);
	else if (c.hits < flow->hits_last || c.bytes < flow->bytes_last)
		snprintf(what, sizeof(what), "slot %u: counts went back, %" PRIu64 "/%" PRIu64
			 " after %" PRIu64 "/%" PRIu64, c.id, c.hits, c.bytes,
			 flow->hits_last, flow->bytes_last);
	else if (db > dh * REFNIC_MAX_FRAME_LEN)
		snprintf(what, sizeof(what), "slot %u: %" PRIu64 " bytes more in %" PRIu64
			 " frames more", c.id, db, dh);
	else
		what[0] = '\0';
	if (what[0] != '\0') {
		refnic_reply_error(ad, "FLOW_QUERY", what);
		return -EIO;
	}
	flow->hits_last = c.hits;
	flow->bytes_last = c.bytes;
	return 0;
}

static int
refnic_flow_query(struct rte_eth_dev *dev, struct rte_flow *flow,
		  const struct rte_flow_action *action, void *data,
		  struct rte_flow_error *error)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct rte_flow_query_count *qc = data;
	struct rte_flow *f;
	int ret = flow_port_check(dev, error);

	if (ret != 0)
		return ret;
	if (action == NULL || action->type != RTE_FLOW_ACTION_TYPE_COUNT)
		return flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, action,
				  "query: only the count action can be queried");
	if (qc == NULL)
		return flow_error(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, action,
				  "query: no rte_flow_query_count to fill");
	pthread_mutex_lock(&ad->flows.lock);
	TAILQ_FOREACH(f, &ad->flows.list, next)
		if (f == flow)
			break;
	if (f == NULL) {
		ret = flow_error(error, ENOENT, RTE_FLOW_ERROR_TYPE_HANDLE, flow,
				 "port %u: no such rule on this port", dev->data->port_id);
	} else if (!(f->rule.actions & REFNIC_FLOW_ACT_COUNT)) {
		ret = flow_error(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, action,
				 "query: the rule has no count action");
	} else {
		ret = flow_counters_read(dev, f);
		if (ret != 0) {
			ret = flow_error(error, -ret, RTE_FLOW_ERROR_TYPE_HANDLE, flow,
					 "port %u: counters not read: %s", dev->data->port_id,
					 rte_strerror(-ret));
		} else {
			qc->hits_set = 1;
			qc->bytes_set = 1;
			qc->hits = f->hits_last + f->hits_off;
			qc->bytes = f->bytes_last + f->bytes_off;
			if (qc->reset) {
				f->hits_off = -f->hits_last;
				f->bytes_off = -f->bytes_last;
			}
		}
	}
	pthread_mutex_unlock(&ad->flows.lock);
	return ret;
}

static int
refnic_flow_isolate(struct rte_eth_dev *dev, int set, struct rte_flow_error *error)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct refnic_flow_rule r;
	uint32_t slot;
	int ret = flow_port_check(dev, error);

	if (ret != 0)
		return ret;
	pthread_mutex_lock(&ad->flows.lock);
	if (!!set == ad->flows.isolated)
		goto out;
	if (set) {
		ret = slot_take(ad, &slot);
		if (ret == 0 && flows_in_device(ad)) {
			isolate_rule(ad, &r);
			ret = hw_flow_add(ad, slot, &r);
			if (ret != 0)
				slot_free(ad, slot);
		}
		if (ret == 0) {
			ad->flows.isolate_slot = slot;
			ad->flows.isolated = true;
		}
	} else {
		ret = flows_in_device(ad) ? hw_flow_del(ad, ad->flows.isolate_slot) : 0;
		if (ret == 0 || ret == -ENOENT || refnic_port_failed(ad)) {
			slot_free(ad, ad->flows.isolate_slot);
			ad->flows.isolated = false;
			ret = 0;
		}
	}
out:
	pthread_mutex_unlock(&ad->flows.lock);
	if (ret != 0)
		return flow_error(error, -ret, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				  "port %u: isolated mode %s: %s", dev->data->port_id,
				  set ? "not entered" : "not left", ret == -ENOSPC ?
				  "the flow table is full" : rte_strerror(-ret));
	return 0;
}

static const struct rte_flow_ops refnic_flow_ops = {
	.validate = refnic_flow_validate,
	.create = refnic_flow_create,
	.destroy = refnic_flow_destroy,
	.flush = refnic_flow_flush,
	.query = refnic_flow_query,
	.isolate = refnic_flow_isolate,
};

int
refnic_flow_ops_get(struct rte_eth_dev *dev __rte_unused, const struct rte_flow_ops **ops)
{
	*ops = &refnic_flow_ops;
	return 0;
}

/* A mark reaches the mbuf (RTE_MBUF_F_RX_FDIR_ID) whenever a rule sets one. */
int
refnic_rx_metadata_negotiate(struct rte_eth_dev *dev, uint64_t *features)
{
	if (refnic_adapter(dev)->ident.caps & REFNIC_CAP_FLOW)
		*features &= RTE_ETH_RX_METADATA_USER_MARK;
	else
		*features = 0;
	return 0;
}

/* Close: the rules go with the port (the device was reset). */
void
refnic_flow_fini(struct rte_eth_dev *dev)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct rte_flow *flow;

	pthread_mutex_lock(&ad->flows.lock);
	while ((flow = TAILQ_FIRST(&ad->flows.list)) != NULL) {
		TAILQ_REMOVE(&ad->flows.list, flow, next);
		rte_free(flow);
	}
	ad->flows.nb = 0;
	memset(ad->flows.slots, 0, sizeof(ad->flows.slots));
	ad->flows.isolated = false;
	ad->flows.synced = false;
	pthread_mutex_unlock(&ad->flows.lock);
}
