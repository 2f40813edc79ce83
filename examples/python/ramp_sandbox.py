"""Start ramp-sandbox for a test and stop it after: Python's standard library only.

with ramp_sandbox() as sandbox:      # sandbox: {url, pid, version, client_id, keys: {test, live}}
    ...                              # call sandbox["url"], sign with sandbox["keys"]["test"]
"""
import contextlib
import json
import os
import signal
import subprocess
import tempfile
import time


@contextlib.contextmanager
def ramp_sandbox(*args, command=("npx", "ramp-sandbox"), timeout=30.0):
    """Runs `ramp-sandbox serve` on a free port with a manual clock until the block ends."""
    with tempfile.TemporaryDirectory() as tmp:
        ready = os.path.join(tmp, "ready.json")
        proc = subprocess.Popen(
            [*command, "serve", "--port", "0", "--clock", "manual", "--log-level", "warn", "--ready-file", ready, *args]
        )
        try:
            deadline = time.monotonic() + timeout
            while not os.path.exists(ready):  # written atomically once the sandbox listens
                if proc.poll() is not None:
                    raise RuntimeError(f"ramp-sandbox exited with {proc.returncode} before it was ready")
                if time.monotonic() > deadline:
                    raise TimeoutError(f"ramp-sandbox was not ready after {timeout} s")
                time.sleep(0.05)
            with open(ready, encoding="utf-8") as f:
                yield json.load(f)
        finally:
            proc.send_signal(signal.SIGTERM)  # a graceful stop
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def signed_headers(sandbox, method, path, body="", env="test"):
    """The four headers of spec §5.2 for a /v1 call (path with its query, body exactly as sent)."""
    import hashlib
    import hmac

    keys = sandbox["keys"][env]
    timestamp = str(int(time.time() * 1000))
    canonical = "|".join([sandbox["client_id"], timestamp, method.upper(), path, body])
    digest = hmac.new(keys["encryption_key"].encode(), canonical.encode(), hashlib.sha256).hexdigest()
    return {
        "svc-client-id": sandbox["client_id"],
        "Authorization": f"Bearer {keys['secret_key']}",
        "svc-timestamp": timestamp,
        "svc-signature": f"sha256={digest}",
    }


@contextlib.contextmanager
def ramp_sandbox_container(*args, image="ramp-sandbox", engine="docker", timeout=30.0):
    """The same from the image (docs/container.md), with docker or podman: no Node on the machine.

    Publishes port 4010 on a free port of 127.0.0.1; the ready file comes through a bind mount,
    its url rewritten to that port. `docker stop` (SIGTERM) stops it gracefully; --rm removes it.
    """
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o777)  # the image runs as the user node (uid 1000)
        name = f"ramp-sandbox-{os.getpid()}-{time.monotonic_ns()}"
        subprocess.run(
            [engine, "run", "-d", "--rm", "--name", name, "-p", "127.0.0.1::4010", "-v", f"{tmp}:/ready",
             "-e", "SANDBOX_READY_FILE=/ready/ready.json", "-e", "SANDBOX_CLOCK=manual", "-e", "LOG_LEVEL=warn",
             image, "serve", *args],
            check=True, stdout=subprocess.DEVNULL,
        )
        try:
            ready = os.path.join(tmp, "ready.json")
            deadline = time.monotonic() + timeout
            while not os.path.exists(ready):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"ramp-sandbox ({image}) was not ready after {timeout} s")
                time.sleep(0.05)
            port = subprocess.run([engine, "port", name, "4010/tcp"], check=True, capture_output=True, text=True)
            with open(ready, encoding="utf-8") as f:
                sandbox = json.load(f)
            sandbox["url"] = f"http://127.0.0.1:{port.stdout.split()[0].rsplit(':', 1)[1]}"
            yield sandbox
        finally:
            subprocess.run([engine, "stop", "-t", "5", name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
