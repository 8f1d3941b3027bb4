"""Serving a lecture hall (deploy/), checked without Docker or a cluster: the HAProxy configuration
passes `haproxy -c`, the compose file and the Kubernetes manifests say what the app needs (probes
on /_stcore/health, cookie stickiness, long websocket timeouts), and the manifests validate offline
against Kubernetes' schemas (kubernetes-validate). The real servers behind a real HAProxy are in
tests/e2e/test_lecture_hall.py."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from deploy import haproxy, serve

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
K8S_VERSION = "1.31.0"
HEALTH = "/_stcore/health"
MIB = 1024 * 1024

needs_haproxy = pytest.mark.skipif(shutil.which("haproxy") is None and not Path("/usr/sbin/haproxy").exists(),
                                   reason="`haproxy -c` needs HAProxy (apt-get install -y haproxy)")


# --- HAProxy ----------------------------------------------------------------------------------
def lines(text: str) -> list[str]:
    return [line.split("#")[0].strip() for line in text.splitlines() if line.split("#")[0].strip()]


def test_the_configuration_balances_by_connections_and_sticks_by_cookie():
    text = lines(haproxy.render(["127.0.0.1:8601", "127.0.0.1:8602", "127.0.0.1:8603"], bind="127.0.0.1:9000"))
    assert "balance leastconn" in text
    assert f"cookie {haproxy.COOKIE} insert indirect nocache httponly" in text
    assert [line for line in text if line.startswith("server ")] == [
        f"server s{i} 127.0.0.1:860{i} cookie s{i}" for i in (1, 2, 3)]
    assert not any(re.search(r"balance (source|hdr|uri)|hash-type|stick-table", line) for line in text), \
        "a class shares one NAT address: no source-address stickiness"
    assert f"option httpchk GET {HEALTH}" in text and "http-check expect status 200" in text
    assert "option redispatch" in text and "mode http" in text and "bind 127.0.0.1:9000" in text
    assert any(line.startswith("default-server check") for line in text)
    timeouts = dict(line.split()[1:3] for line in text if line.startswith("timeout "))
    assert timeouts["tunnel"] == "1h", "an idle websocket (a student reading) stays open"
    assert {"connect", "client", "server"} <= set(timeouts)
    assert not any(line.startswith(("log ", "option httplog")) for line in text), "no access log unless asked"
    logged = lines(haproxy.render(["127.0.0.1:8601"], access_log=True))
    assert "log stdout format raw local0" in logged and "option httplog" in logged
    with pytest.raises(ValueError, match="at least one backend"):
        haproxy.render([])


@needs_haproxy
@pytest.mark.parametrize("access_log", [False, True])
def test_haproxy_accepts_the_configuration_without_a_warning(tmp_path, access_log):
    config = tmp_path / "haproxy.cfg"
    config.write_text(haproxy.render(["127.0.0.1:8601", "127.0.0.1:8602"], bind="127.0.0.1:8501",
                                     access_log=access_log))
    checked = haproxy.check(config)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "WARNING" not in checked.stdout + checked.stderr, checked.stderr


@needs_haproxy
def test_the_compose_configuration_is_the_written_one_and_haproxy_accepts_it():
    written = (DEPLOY / "haproxy.cfg").read_text()
    assert written == haproxy.compose_config(), \
        "deploy/haproxy.cfg is stale: write it again with `python -m deploy.haproxy --compose > deploy/haproxy.cfg`"
    checked = haproxy.check(DEPLOY / "haproxy.cfg")
    assert checked.returncode == 0, checked.stderr
    # app-1 and app-2 only resolve inside the compose network; HAProxy starts without them (init-addr none)
    warnings = [line for line in checked.stderr.splitlines() if "WARNING" in line]
    assert all("could not resolve address 'app-" in line for line in warnings), warnings


def test_serve_says_so_in_a_sentence_when_haproxy_is_missing(monkeypatch, capsys):
    monkeypatch.setattr(haproxy.shutil, "which", lambda name, **where: None)
    with pytest.raises(haproxy.HAProxyMissing, match="apt-get install -y haproxy"):
        serve.Farm(2)
    assert serve.main(["--processes", "2"]) == 2
    message = capsys.readouterr().err
    assert "HAProxy is not installed" in message and "streamlit run app.py" in message
    assert "Traceback" not in message
    serve.Farm(1)                                 # one process needs no balancer
    monkeypatch.setattr(haproxy.shutil, "which", lambda name, **where: "/usr/sbin/haproxy")
    with pytest.raises(ValueError, match="also a backend port"):
        serve.Farm(2, port=8601, first_backend_port=8600)


def test_the_backends_run_the_app_as_the_dockerfile_does_on_loopback():
    command = serve.streamlit_command(8601)
    assert command[1:5] == ["-m", "streamlit", "run", "app.py"]
    flags = dict(zip(command[5::2], command[6::2]))
    assert flags["--server.port"] == "8601" and flags["--server.address"] == "127.0.0.1"
    assert flags["--server.headless"] == "true" and flags["--browser.gatherUsageStats"] == "false"
    farm = serve.Farm(1, port=8555)
    assert farm.ports == [8555] and farm.url == "http://127.0.0.1:8555"


def test_serve_passes_the_class_store_setting_to_every_process_and_says_which():
    farm = serve.Farm(1, port=8555, env={"PLAYGROUND_REDIS_URL": "redis://:secret@cache:6379/0"})
    assert farm.env["PLAYGROUND_REDIS_URL"] == "redis://:secret@cache:6379/0"
    sentence = serve.class_store_sentence(farm.env)
    assert "Redis at cache:6379/0" in sentence and "secret" not in sentence
    sentence = serve.class_store_sentence({"PLAYGROUND_DATA": "/srv/playground"})
    assert "SQLite at /srv/playground/classes.sqlite3" in sentence


def test_ci_installs_redis_server_for_the_class_store_tests():
    ci = (ROOT / ".ci" / "run").read_text()
    install = next(line for line in ci.splitlines() if "apt-get install" in line)
    assert "redis-server" in install.split()
    assert "command -v redis-server" in ci, "a machine without redis-server gets it"


def test_ci_installs_haproxy():
    ci = (ROOT / ".ci" / "run").read_text()
    install = next(line for line in ci.splitlines() if "apt-get install" in line)
    assert "haproxy" in install.split()
    assert "command -v haproxy" in ci, "a machine without haproxy gets it"


# --- Docker Compose ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def health_url_in(test: list[str] | str) -> bool:
    return f"127.0.0.1:8501{HEALTH}" in " ".join(test if isinstance(test, list) else [test])


def test_compose_runs_the_app_image_twice_behind_haproxy(compose):
    services = compose["services"]
    apps = sorted(name for name in services if name not in ("haproxy", "redis"))
    assert apps == ["app-1", "app-2"] and [f"{a}:8501" for a in apps] == list(haproxy.COMPOSE_BACKENDS)
    for name in apps:
        app = services[name]
        build = app["build"]
        assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == ROOT / "Dockerfile"
        assert "ports" not in app, "only HAProxy is published"
        assert health_url_in(app["healthcheck"]["test"])
        assert app["environment"]["PLAYGROUND_LOCKS"] == "/locks"
        # one secret for both containers, required from the host's environment, never written in the file
        assert app["environment"]["PLAYGROUND_SECRET"].startswith("${PLAYGROUND_SECRET:?")
        assert app["environment"]["STREAMLIT_SERVER_COOKIE_SECRET"] == "${PLAYGROUND_SECRET}"
        assert any(v.startswith("training-locks:/locks") for v in app["volumes"])
    proxy = services["haproxy"]
    assert re.fullmatch(r"haproxy:2\.6(\.\d+)?(-alpine)?", proxy["image"]), \
        "the image runs the HAProxy the configuration is checked with (2.6)"
    assert "8501:8501" in proxy["ports"]
    assert "./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in proxy["volumes"]
    assert (DEPLOY / "haproxy.cfg").exists()
    assert {name: dep["condition"] for name, dep in proxy["depends_on"].items()} == \
        {name: "service_healthy" for name in apps}
    assert health_url_in(proxy["healthcheck"]["test"])
    assert compose["volumes"]["training-locks"]["driver_opts"]["type"] == "tmpfs"


def test_every_replica_maps_the_prepared_cache_baked_into_the_image():
    """Compose services and Kubernetes pods run the Dockerfile's image, which prepares the cache at
    build time (engine.prepare): a replica starts with its arrays ready to map, not to compute."""
    assert "python -m engine.prepare" in (ROOT / "Dockerfile").read_text()


# --- Kubernetes -------------------------------------------------------------------------------
APP = "transformer-playground"
REDIS = "transformer-playground-redis"


def all_manifests() -> list[dict]:
    return [doc | {"_file": path.name} for path in sorted((DEPLOY / "k8s").glob("*.yaml"))
            for doc in yaml.safe_load_all(path.read_text()) if doc]


def manifests(name: str = APP) -> dict[str, dict]:
    """The manifests of one application (the app, or its Redis class store) by kind."""
    return {doc["kind"]: doc for doc in all_manifests() if doc["metadata"]["name"] == name}


def test_every_manifest_validates_against_the_kubernetes_schemas():
    validate = pytest.importorskip("kubernetes_validate",
                                   reason="pip install kubernetes-validate (pinned in requirements-test.txt)")
    found = manifests()
    assert set(found) == {"Deployment", "Service", "Ingress", "HorizontalPodAutoscaler"}
    assert set(manifests(REDIS)) == {"Deployment", "Service"}
    assert len(all_manifests()) == 6
    for doc in all_manifests():
        resource = {k: v for k, v in doc.items() if k != "_file"}
        validate.validate(resource, K8S_VERSION, strict=True)
    broken = {k: v for k, v in found["Deployment"].items() if k != "_file"}
    broken["spec"] = dict(broken["spec"], replica=2)           # a typo the schemas catch
    with pytest.raises(validate.ValidationError):
        validate.validate(broken, K8S_VERSION, strict=True)


def quantity(text: str) -> float:
    units = {"Ki": 1024, "Mi": MIB, "Gi": 1024 * MIB, "m": 1e-3, "": 1}
    number, unit = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", str(text)).groups()
    return float(number) * units[unit]


def test_the_deployment_probes_health_and_asks_for_what_a_process_holds():
    deployment = manifests()["Deployment"]
    spec = deployment["spec"]
    assert spec["replicas"] == 2
    pod = spec["template"]
    assert spec["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    (container,) = pod["spec"]["containers"]
    assert {p["containerPort"] for p in container["ports"]} == {8501}
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        get = container[probe]["httpGet"]
        assert (get["path"], get["port"]) == (HEALTH, 8501), probe
    resources = container["resources"]
    assert 1.5 * 1024 * MIB <= quantity(resources["requests"]["memory"]) <= quantity(resources["limits"]["memory"])
    assert 0 < quantity(resources["requests"]["cpu"]) <= quantity(resources["limits"]["cpu"])
    assert pod["spec"]["securityContext"]["runAsUser"] == 1000


def test_the_service_and_ingress_reach_the_pods_with_cookie_affinity_and_long_timeouts():
    found = manifests()
    pod_labels = found["Deployment"]["spec"]["template"]["metadata"]["labels"]
    service = found["Service"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    assert service["spec"]["ports"][0]["targetPort"] in ("http", 8501)
    ingress = found["Ingress"]
    notes = ingress["metadata"]["annotations"]
    assert notes["nginx.ingress.kubernetes.io/affinity"] == "cookie"
    assert notes["nginx.ingress.kubernetes.io/session-cookie-name"]
    for timeout in ("proxy-read-timeout", "proxy-send-timeout"):
        assert int(notes[f"nginx.ingress.kubernetes.io/{timeout}"]) >= 3600, timeout
    assert quantity(notes["nginx.ingress.kubernetes.io/proxy-body-size"].replace("m", "Mi")) >= 200 * MIB
    assert ingress["spec"]["ingressClassName"] == "nginx"
    backend = ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend["name"] == service["metadata"]["name"]
    assert backend["port"].get("name") == service["spec"]["ports"][0]["name"]


def test_the_autoscaler_follows_cpu_on_the_deployment():
    found = manifests()
    hpa = found["HorizontalPodAutoscaler"]
    assert hpa["apiVersion"] == "autoscaling/v2"
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", found["Deployment"]["metadata"]["name"])
    (metric,) = hpa["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu" and metric["resource"]["target"]["type"] == "Utilization"
    assert hpa["spec"]["minReplicas"] == found["Deployment"]["spec"]["replicas"] < hpa["spec"]["maxReplicas"]


# --- the class store shared by every process (engine.classroom) --------------------------------
def test_compose_shares_one_redis_class_store_between_the_app_processes(compose):
    services = compose["services"]
    redis = services["redis"]
    assert re.fullmatch(r"redis:7\.\d+(\.\d+)?(-alpine)?", redis["image"])
    assert "ports" not in redis, "Redis is reached inside the compose network only"
    assert "redis-cli" in " ".join(redis["healthcheck"]["test"])
    for name in ("app-1", "app-2"):
        app = services[name]
        assert app["environment"]["PLAYGROUND_REDIS_URL"] == "redis://redis:6379/0"
        assert app["depends_on"]["redis"]["condition"] == "service_healthy"


def test_kubernetes_runs_one_redis_that_every_app_replica_reaches():
    redis = manifests(REDIS)
    deployment, service = redis["Deployment"], redis["Service"]
    assert deployment["spec"]["replicas"] == 1 and deployment["spec"]["strategy"]["type"] == "Recreate"
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert {p["containerPort"] for p in container["ports"]} == {6379} and service["spec"]["ports"][0]["port"] == 6379
    assert not set(pod_labels.items()) & set(manifests()["Service"]["spec"]["selector"].items()), \
        "the app's Service must not select the Redis pod"
    (app,) = manifests()["Deployment"]["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e.get("value", e.get("valueFrom")) for e in app["env"]}
    assert env["PLAYGROUND_REDIS_URL"] == f"redis://{service['metadata']['name']}:6379/0"
    # every replica signs browsers' ids and Streamlit's cookies with one secret, from a Secret, never the manifest
    assert env["PLAYGROUND_SECRET"] == env["STREAMLIT_SERVER_COOKIE_SECRET"] == {
        "secretKeyRef": {"name": "transformer-playground", "key": "secret"}}



def test_a_parked_class_events_request_fits_under_the_proxies_timeouts():
    """The class's events route parks a request up to CLASS_EVENTS_PARK_S (ui.class_events): HAProxy's client and
    server timeouts and the Ingress's read timeout stay above it with room for a slow answer, and the Ingress does
    not buffer the answer."""
    import re

    from engine import limits

    config = haproxy.render(["127.0.0.1:8601"], bind="127.0.0.1:8501")
    for which in ("client", "server"):
        seconds = int(re.search(rf"timeout {which} (\d+)s", config).group(1))
        assert seconds >= limits.CLASS_EVENTS_PARK_S + 15, which
    ingress = (DEPLOY / "k8s" / "ingress.yaml").read_text()
    read = int(re.search(r'proxy-read-timeout: "(\d+)"', ingress).group(1))
    assert read >= limits.CLASS_EVENTS_PARK_S + 15
    assert 'proxy-buffering: "off"' in ingress
