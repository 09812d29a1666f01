/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * What the port accepts: extra unicast addresses, the multicast list, VLAN
 * filtering. Each is an admin command; the device does the filtering.
 */

#include "refnic.h"

int
refnic_mac_addr_add(struct rte_eth_dev *dev, struct rte_ether_addr *mac,
		    uint32_t index __rte_unused, uint32_t pool __rte_unused)
{
	struct refnic_admin_cmd cmd = { .opcode = REFNIC_ADMIN_MAC_FILTER_ADD };

	memcpy(cmd.mac, mac->addr_bytes, RTE_ETHER_ADDR_LEN);
	return refnic_admin_exec(refnic_adapter(dev), &cmd, NULL);
}

void
refnic_mac_addr_remove(struct rte_eth_dev *dev, uint32_t index)
{
	struct refnic_admin_cmd cmd = { .opcode = REFNIC_ADMIN_MAC_FILTER_DEL };

	memcpy(cmd.mac, dev->data->mac_addrs[index].addr_bytes, RTE_ETHER_ADDR_LEN);
	refnic_admin_exec(refnic_adapter(dev), &cmd, NULL);
}

int
refnic_set_mc_addr_list(struct rte_eth_dev *dev, struct rte_ether_addr *mc_addrs,
			uint32_t nb_mc_addrs)
{
	struct refnic_admin_cmd cmd = { .opcode = REFNIC_ADMIN_MC_LIST_SET };
	struct refnic_adapter *ad = refnic_adapter(dev);
	int ret;

	if (nb_mc_addrs > REFNIC_MAX_MC_FILTERS) {
		PMD_DRV_LOG(ERR, "port %u: %u multicast addresses, the device holds %u",
			    dev->data->port_id, nb_mc_addrs, REFNIC_MAX_MC_FILTERS);
		return -ENOSPC;
	}
	ret = refnic_admin_exec_buf(ad, &cmd, mc_addrs, nb_mc_addrs * RTE_ETHER_ADDR_LEN, true);
	if (ret == 0) {
		if (nb_mc_addrs != 0)	/* an empty list may come as NULL */
			memcpy(ad->mc_addrs, mc_addrs, nb_mc_addrs * sizeof(*mc_addrs));
		ad->nb_mc_addrs = nb_mc_addrs;
	}
	return ret;
}

int
refnic_vlan_filter_set(struct rte_eth_dev *dev, uint16_t vlan_id, int on)
{
	struct refnic_admin_cmd cmd = {
		.opcode = on ? REFNIC_ADMIN_VLAN_FILTER_ADD : REFNIC_ADMIN_VLAN_FILTER_DEL,
		.vlan_id = vlan_id,
	};

	return refnic_admin_exec(refnic_adapter(dev), &cmd, NULL);
}

/* Switch the device features the Rx offloads and packet types ask for. */
int
refnic_features_apply(struct rte_eth_dev *dev)
{
	uint64_t offloads = dev->data->dev_conf.rxmode.offloads;
	struct refnic_admin_cmd cmd = { .opcode = REFNIC_ADMIN_SET_FEATURES };

	if (offloads & RTE_ETH_RX_OFFLOAD_VLAN_FILTER)
		cmd.value |= REFNIC_CAP_VLAN_FILTER;
	if (offloads & RTE_ETH_RX_OFFLOAD_VLAN_STRIP)
		cmd.value |= REFNIC_CAP_VLAN_STRIP;
	if (offloads & REFNIC_RX_CKSUM_OFFLOADS)
		cmd.value |= REFNIC_CAP_RX_CSUM;
	/* Packet types past L2 only if the application takes them (set_ptypes). */
	if ((refnic_adapter(dev)->ptype_mask & (RTE_PTYPE_L3_MASK | RTE_PTYPE_L4_MASK)) &&
	    (refnic_adapter(dev)->ident.caps & REFNIC_CAP_RX_PTYPE))
		cmd.value |= REFNIC_CAP_RX_PTYPE;
	return refnic_admin_exec(refnic_adapter(dev), &cmd, NULL);
}

int
refnic_vlan_offload_set(struct rte_eth_dev *dev, int mask)
{
	if (!(mask & (RTE_ETH_VLAN_FILTER_MASK | RTE_ETH_VLAN_STRIP_MASK)))
		return 0;
	return refnic_features_apply(dev);
}

/*
 * A device reset forgets every filter. At a start ethdev sends the MAC
 * addresses again, not the multicast list (which only the PMD keeps) nor
 * the VLAN table (kept in dev->data): refnic_dev_start() sends those.
 */
int
refnic_filters_restore(struct rte_eth_dev *dev)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	const struct rte_vlan_filter_conf *vlans = &dev->data->vlan_filter_conf;
	struct refnic_admin_cmd cmd = { .opcode = REFNIC_ADMIN_MC_LIST_SET };
	int ret = 0;
	unsigned int i;

	if (ad->nb_mc_addrs != 0)
		ret = refnic_admin_exec_buf(ad, &cmd, ad->mc_addrs,
					    ad->nb_mc_addrs * RTE_ETHER_ADDR_LEN, true);
	if (!(dev->data->dev_conf.rxmode.offloads & RTE_ETH_RX_OFFLOAD_VLAN_FILTER))
		return ret;
	for (i = 0; ret == 0 && i < RTE_ETH_VLAN_ID_MAX + 1; i++)
		if (vlans->ids[i / 64] & (UINT64_C(1) << (i % 64)))
			ret = refnic_vlan_filter_set(dev, i, 1);
	return ret;
}

/* The MAC addresses, which a recovery (unseen by ethdev) must send itself. */
int
refnic_macs_restore(struct rte_eth_dev *dev)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	int ret = dev->dev_ops->mac_addr_set(dev, &dev->data->mac_addrs[0]);
	unsigned int i;

	for (i = 1; ret == 0 && i < refnic_max_mac_addrs(ad); i++)
		if (!rte_is_zero_ether_addr(&dev->data->mac_addrs[i]))
			ret = refnic_mac_addr_add(dev, &dev->data->mac_addrs[i], i, 0);
	return ret;
}
