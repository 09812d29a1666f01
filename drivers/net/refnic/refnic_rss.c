/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * RSS configuration: the key, hash types and redirection table live in the
 * device (admin RSS_SET / RSS_GET); the driver keeps a copy to program at
 * start and to answer while the port is stopped.
 */

#include <stdio.h>

#include "refnic.h"

/* The key from Microsoft's RSS verification suite, the usual default. */
static const uint8_t refnic_default_rss_key[REFNIC_RSS_KEY_SIZE] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
	0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* ethdev hash functions and the device's hash types, one to one. */
static const struct {
	uint64_t rss_hf;
	uint32_t hw;
} refnic_rss_types[] = {
	{ RTE_ETH_RSS_IPV4, REFNIC_RSS_HASH_IPV4 },
	{ RTE_ETH_RSS_NONFRAG_IPV4_TCP, REFNIC_RSS_HASH_TCP_IPV4 },
	{ RTE_ETH_RSS_NONFRAG_IPV4_UDP, REFNIC_RSS_HASH_UDP_IPV4 },
	{ RTE_ETH_RSS_IPV6, REFNIC_RSS_HASH_IPV6 },
	{ RTE_ETH_RSS_NONFRAG_IPV6_TCP, REFNIC_RSS_HASH_TCP_IPV6 },
	{ RTE_ETH_RSS_NONFRAG_IPV6_UDP, REFNIC_RSS_HASH_UDP_IPV6 },
};

uint64_t
refnic_rss_offloads(void)
{
	uint64_t hf = 0;
	unsigned int i;

	for (i = 0; i < RTE_DIM(refnic_rss_types); i++)
		hf |= refnic_rss_types[i].rss_hf;
	return hf;
}

static uint32_t
rss_hf_to_hw(uint64_t rss_hf)
{
	uint32_t hw = 0;
	unsigned int i;

	for (i = 0; i < RTE_DIM(refnic_rss_types); i++)
		if (rss_hf & refnic_rss_types[i].rss_hf)
			hw |= refnic_rss_types[i].hw;
	return hw;
}

/* The device's hash types for ethdev's (a flow rule's RSS action too). */
uint32_t
refnic_rss_hf_to_hw(uint64_t rss_hf)
{
	return rss_hf_to_hw(rss_hf);
}

static uint64_t
rss_hw_to_hf(uint32_t hw)
{
	uint64_t hf = 0;
	unsigned int i;

	for (i = 0; i < RTE_DIM(refnic_rss_types); i++)
		if (hw & refnic_rss_types[i].hw)
			hf |= refnic_rss_types[i].rss_hf;
	return hf;
}

static int
rss_send(struct refnic_adapter *ad)
{
	struct refnic_admin_cmd cmd = { .opcode = REFNIC_ADMIN_RSS_SET };

	return refnic_admin_exec_buf(ad, &cmd, &ad->rss, sizeof(ad->rss), true);
}

/* Send the copy to the device if the port runs; else it goes at start. */
static int
rss_push(struct rte_eth_dev *dev)
{
	return dev->data->dev_started ? rss_send(refnic_adapter(dev)) : 0;
}

/* A port whose device has no RSS refuses every RSS call with a reason. */
static int
rss_capable(struct rte_eth_dev *dev)
{
	if (refnic_adapter(dev)->ident.caps & REFNIC_CAP_RSS)
		return 0;
	PMD_DRV_LOG(ERR, "port %u: the device has no RSS", dev->data->port_id);
	return -ENOTSUP;
}

static int
rss_key_check(const uint8_t *key, uint8_t key_len)
{
	if (key != NULL && key_len != REFNIC_RSS_KEY_SIZE) {
		PMD_DRV_LOG(ERR, "RSS key of %u bytes: the device takes %u",
			    key_len, REFNIC_RSS_KEY_SIZE);
		return -EINVAL;
	}
	return 0;
}

/* dev_configure: RSS on (with the app's key, or ours) or off. Checked
 * first: a refused configuration leaves the previous one as it was. */
int
refnic_rss_configure(struct rte_eth_dev *dev)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	const struct rte_eth_rss_conf *conf = &dev->data->dev_conf.rx_adv_conf.rss_conf;
	bool rss = dev->data->dev_conf.rxmode.mq_mode & RTE_ETH_MQ_RX_RSS_FLAG;
	uint16_t nb_rxq = dev->data->nb_rx_queues;
	unsigned int i;
	int ret;

	if (rss) {
		ret = rss_capable(dev);
		if (ret == 0)
			ret = rss_key_check(conf->rss_key, conf->rss_key_len);
		if (ret != 0)
			return ret;
	}
	memset(&ad->rss, 0, sizeof(ad->rss));
	memcpy(ad->rss.key, refnic_default_rss_key, sizeof(ad->rss.key));
	for (i = 0; i < REFNIC_RSS_RETA_SIZE; i++)
		ad->rss.reta[i] = nb_rxq != 0 ? i % nb_rxq : 0;
	if (!rss)
		return 0;
	ad->rss.hash_types = rss_hf_to_hw(conf->rss_hf);
	if (conf->rss_key != NULL)
		memcpy(ad->rss.key, conf->rss_key, REFNIC_RSS_KEY_SIZE);
	return 0;
}

/* dev_start: the device forgets RSS across resets; program it every start. */
int
refnic_rss_start(struct rte_eth_dev *dev)
{
	struct refnic_adapter *ad = refnic_adapter(dev);

	return (ad->ident.caps & REFNIC_CAP_RSS) ? rss_send(ad) : 0;
}

int
refnic_rss_hash_update(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	int ret = rss_capable(dev);

	if (ret == 0)
		ret = rss_key_check(conf->rss_key, conf->rss_key_len);
	if (ret != 0)
		return ret;
	if (conf->rss_key != NULL)
		memcpy(ad->rss.key, conf->rss_key, REFNIC_RSS_KEY_SIZE);
	ad->rss.hash_types = rss_hf_to_hw(conf->rss_hf);
	return rss_push(dev);
}

/* Reads the device's own copy while it runs: what is set is what is used. */
static int
rss_pull(struct rte_eth_dev *dev, struct refnic_rss_config *cfg)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct refnic_admin_cmd cmd = { .opcode = REFNIC_ADMIN_RSS_GET };
	char what[96];
	unsigned int i;
	int ret;

	ret = rss_capable(dev);
	if (ret != 0)
		return ret;
	if (!dev->data->dev_started) {
		*cfg = ad->rss;
		return 0;
	}
	ret = refnic_admin_exec_buf(ad, &cmd, cfg, sizeof(*cfg), false);
	if (ret != 0)
		return ret;
	/* Untrusted (our copy of it): the application must see neither a
	 * queue the port lacks nor a hash type it cannot name. */
	if (cfg->hash_types & ~rss_hf_to_hw(refnic_rss_offloads())) {
		snprintf(what, sizeof(what), "hash types 0x%x, of which 0x%x unknown",
			 cfg->hash_types, cfg->hash_types & ~rss_hf_to_hw(refnic_rss_offloads()));
		refnic_reply_error(ad, "RSS_GET", what);
		return -EIO;
	}
	for (i = 0; i < REFNIC_RSS_RETA_SIZE; i++) {
		if (cfg->reta[i] >= dev->data->nb_rx_queues) {
			snprintf(what, sizeof(what), "RETA entry %u names RX queue %u of %u",
				 i, cfg->reta[i], dev->data->nb_rx_queues);
			refnic_reply_error(ad, "RSS_GET", what);
			return -EIO;
		}
	}
	return 0;
}

int
refnic_rss_hash_conf_get(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf)
{
	struct refnic_rss_config cfg;
	int ret = rss_pull(dev, &cfg);

	if (ret != 0)
		return ret;
	if (conf->rss_key != NULL) {
		if (conf->rss_key_len < REFNIC_RSS_KEY_SIZE)
			return -EINVAL;
		memcpy(conf->rss_key, cfg.key, REFNIC_RSS_KEY_SIZE);
	}
	conf->rss_key_len = REFNIC_RSS_KEY_SIZE;
	conf->rss_hf = rss_hw_to_hf(cfg.hash_types);
	return 0;
}

int
refnic_reta_update(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *reta,
		   uint16_t reta_size)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	uint8_t table[REFNIC_RSS_RETA_SIZE];
	unsigned int i;

	if (rss_capable(dev) != 0)
		return -ENOTSUP;
	if (reta_size != REFNIC_RSS_RETA_SIZE) {
		PMD_DRV_LOG(ERR, "RETA of %u entries: the device has %u",
			    reta_size, REFNIC_RSS_RETA_SIZE);
		return -EINVAL;
	}
	memcpy(table, ad->rss.reta, sizeof(table));
	for (i = 0; i < reta_size; i++) {
		const struct rte_eth_rss_reta_entry64 *e = &reta[i / RTE_ETH_RETA_GROUP_SIZE];
		unsigned int j = i % RTE_ETH_RETA_GROUP_SIZE;

		if (!(e->mask & (UINT64_C(1) << j)))
			continue;
		if (e->reta[j] >= dev->data->nb_rx_queues) {
			PMD_DRV_LOG(ERR, "RETA entry %u names queue %u of %u", i, e->reta[j],
				    dev->data->nb_rx_queues);
			return -EINVAL;
		}
		table[i] = e->reta[j];
	}
	memcpy(ad->rss.reta, table, sizeof(table));
	return rss_push(dev);
}

int
refnic_reta_query(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *reta,
		  uint16_t reta_size)
{
	struct refnic_rss_config cfg;
	unsigned int i;
	int ret;

	if (reta_size != REFNIC_RSS_RETA_SIZE && rss_capable(dev) == 0) {
		PMD_DRV_LOG(ERR, "RETA of %u entries asked: the device has %u",
			    reta_size, REFNIC_RSS_RETA_SIZE);
		return -EINVAL;
	}
	ret = rss_pull(dev, &cfg);
	if (ret != 0)
		return ret;
	for (i = 0; i < reta_size; i++) {
		struct rte_eth_rss_reta_entry64 *e = &reta[i / RTE_ETH_RETA_GROUP_SIZE];
		unsigned int j = i % RTE_ETH_RETA_GROUP_SIZE;

		if (e->mask & (UINT64_C(1) << j))
			e->reta[j] = cfg.reta[i];
	}
	return 0;
}
