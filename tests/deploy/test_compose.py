"""docker-compose.yml, read (no Docker engine here): its services fit together and say how to run them by hand."""

from __future__ import annotations

import ipaddress
from typing import Any

import yaml

from tests.conftest import ROOT
from tests.forkserver import run_module
from treset.cli import COMMANDS

COMPOSE = ROOT / "docker-compose.yml"


def _services() -> dict[str, Any]:
    services: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())["services"]
    return services


def test_the_services_fit_together() -> None:
    """Dependencies exist, the schema is migrated once, and only the proxy is published."""
    services = _services()
    assert {"db", "redis", "migrate", "server", "proxy", "agent"} <= set(services)
    for name, service in services.items():
        for needed in service.get("depends_on", {}):
            assert needed in services, f"{name} depends on a missing service {needed}"
        if name == "grafana":  # the dashboards (profile ``metrics``): this machine only
            assert all(str(p).startswith("127.0.0.1:") for p in service["ports"])
            continue
        assert name == "proxy" or "ports" not in service, f"{name} is reachable only through the proxy"
    assert services["server"]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    assert "--no-migrate" in services["server"]["command"]  # replicas must not race on the schema
    assert services["migrate"]["environment"] == services["server"]["environment"]
    mounts = [v.split(":") for v in services["proxy"]["volumes"]]
    assert ["./deploy/nginx.conf", "/etc/nginx/conf.d/default.conf", "ro"] in mounts
    assert (ROOT / "deploy" / "nginx.conf").is_file()  # run by tests/deploy/test_proxy.py


def test_the_commands_exist() -> None:
    """Each ``treset`` command of a service is a real sub-command with real options."""
    for name, service in _services().items():
        command = service.get("command")
        if not command or command[0] != "treset":
            continue
        assert command[1] in COMMANDS, f"{name}: no 'treset {command[1]}'"
        usage = run_module("treset.cli", [command[1], "--help"], check=True).stdout
        for option in (arg for arg in command[2:] if arg.startswith("--")):
            assert option in usage, f"{name}: 'treset {command[1]}' has no {option}"


def test_every_service_is_documented_by_hand() -> None:
    """The file's header says how to start each service without Docker."""
    header = COMPOSE.read_text().split("\nservices:", 1)[0]
    for name in _services():
        assert f"#   {name}:" in header, f"the header does not say how to run {name} by hand"


def test_the_metrics_services_use_the_shipped_files() -> None:
    """Prometheus and Grafana are optional (a profile) and read deploy/'s configuration, alerts and dashboard."""
    services = _services()
    for name in ("prometheus", "grafana"):
        assert services[name]["profiles"] == ["metrics"], f"{name} starts only with --profile metrics"
        for volume in services[name]["volumes"]:
            source = volume.split(":")[0]
            assert not source.startswith("./") or (ROOT / source).exists(), f"{name} mounts a missing {source}"
    config = yaml.safe_load((ROOT / "deploy" / "prometheus" / "prometheus.yml").read_text())
    assert config["rule_files"] == ["alerts.yml"] and (ROOT / "deploy" / "prometheus" / "alerts.yml").is_file()
    assert config["scrape_configs"][0]["dns_sd_configs"][0]["names"] == ["server"]  # each replica, not the proxy


def test_the_servers_trust_forwarded_for_only_from_the_proxy() -> None:
    """FORWARDED_ALLOW_IPS is the proxy's fixed address, which no other container can be given."""
    compose = yaml.safe_load(COMPOSE.read_text())
    trusted = compose["services"]["server"]["environment"]["FORWARDED_ALLOW_IPS"]
    proxy = compose["services"]["proxy"]["networks"]["default"]["ipv4_address"]
    assert trusted == proxy and ipaddress.ip_address(proxy)  # one address: not "*", not a network
    pool = compose["networks"]["default"]["ipam"]["config"][0]
    assert ipaddress.ip_address(proxy) in ipaddress.ip_network(pool["subnet"])
    assert ipaddress.ip_address(proxy) not in ipaddress.ip_network(pool["ip_range"])  # not handed out to others
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in site and "$proxy_add_x_forwarded_for" not in site
