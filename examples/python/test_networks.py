"""A pytest (or unittest) test against a sandbox started by the fixture in ramp_sandbox.py."""
import json
import os
import unittest
import urllib.request

from ramp_sandbox import ramp_sandbox, ramp_sandbox_container, signed_headers

# RAMP_SANDBOX_COMMAND overrides how the sandbox is started (default: npx ramp-sandbox);
# RAMP_SANDBOX_IMAGE starts that image instead, with RAMP_SANDBOX_ENGINE (default docker).
COMMAND = tuple(json.loads(os.environ["RAMP_SANDBOX_COMMAND"])) if "RAMP_SANDBOX_COMMAND" in os.environ else ("npx", "ramp-sandbox")
IMAGE = os.environ.get("RAMP_SANDBOX_IMAGE")


class NetworksTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if IMAGE:
            cls._stack = ramp_sandbox_container(image=IMAGE, engine=os.environ.get("RAMP_SANDBOX_ENGINE", "docker"))
        else:
            cls._stack = ramp_sandbox(command=COMMAND)
        cls.sandbox = cls._stack.__enter__()

    @classmethod
    def tearDownClass(cls):
        cls._stack.__exit__(None, None, None)

    def test_lists_networks_with_a_signed_call(self):
        path = "/v1/networks"
        request = urllib.request.Request(self.sandbox["url"] + path, headers=signed_headers(self.sandbox, "GET", path))
        with urllib.request.urlopen(request) as response:
            body = json.load(response)
        self.assertEqual(response.status, 200)
        self.assertTrue(body["status"])
        self.assertGreater(len(body["data"]), 0)


if __name__ == "__main__":
    unittest.main()
