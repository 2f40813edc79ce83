"""Drives the Partner Order API from Python as a generated client does (issue 6).

openapi-python-client (PyPI) cannot be installed where the tests run, so this script does what
its generated code relies on, with the standard library alone: it reads the operations' method
and path from GET /openapi.json by operationId, sends the document's own example bodies, sends an
array query parameter repeated (httpx's way: include=payout&include=timeline), and signs each
request per spec section 5.2. It runs quote, create order from the quote, get with include, and
cancel, checks each answer, and prints one JSON line per step.

Usage: python3 python-client.py BASE_URL CLIENT_ID SECRET_KEY ENCRYPTION_KEY
"""

import hashlib
import hmac
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

BASE, CLIENT_ID, SECRET_KEY, ENCRYPTION_KEY = sys.argv[1:5]


def get_json(url):
    with urllib.request.urlopen(url) as res:
        return json.loads(res.read())


DOC = get_json(BASE + "/openapi.json")
SCHEMAS = DOC["components"]["schemas"]


def operation(operation_id):
    """The method and path template of an operation, as a generator reads them."""
    for path, item in DOC["paths"].items():
        for method, op in item.items():
            if op.get("operationId") == operation_id:
                return method.upper(), path, op
    raise SystemExit("no operation " + operation_id)


def example(name):
    return json.loads(json.dumps(SCHEMAS[name]["example"]))


def call(operation_id, path_params=None, query=None, body=None):
    method, template, op = operation(operation_id)
    path = template
    for key, value in (path_params or {}).items():
        path = path.replace("{" + key + "}", urllib.parse.quote(str(value), safe=""))
    # Query parameters as httpx encodes them: a list is the parameter repeated.
    if query:
        for key, value in query.items():
            param = next(p for p in op.get("parameters", []) if p["name"] == key and p["in"] == "query")
            if isinstance(value, list) and param.get("explode", True) is False:
                raise SystemExit(key + ": the document asks for a comma-separated array")
        path += "?" + urllib.parse.urlencode(query, doseq=True)
    raw = b"" if body is None else json.dumps(body, separators=(",", ":")).encode()
    timestamp = str(int(time.time() * 1000))
    canonical = "|".join([CLIENT_ID, timestamp, method, path, raw.decode()])
    signature = "sha256=" + hmac.new(ENCRYPTION_KEY.encode(), canonical.encode(), hashlib.sha256).hexdigest()
    headers = {
        "authorization": "Bearer " + SECRET_KEY,
        "svc-client-id": CLIENT_ID,
        "svc-timestamp": timestamp,
        "svc-signature": signature,
    }
    if body is not None:
        headers["content-type"] = "application/json"
    request = urllib.request.Request(BASE + path, data=raw if body is not None else None, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request) as res:
            status, answer = res.status, json.loads(res.read())
    except urllib.error.HTTPError as error:
        status, answer = error.code, json.loads(error.read() or b"null")
    print(json.dumps({"step": operation_id, "method": method, "path": path, "status": status, "code": (answer or {}).get("code")}), flush=True)
    if status != 200 or not answer.get("status"):
        raise SystemExit(operation_id + " answered " + str(status) + ": " + json.dumps(answer))
    return answer["data"]


quote = call("createQuote", body=example("QuoteBody"))
assert quote["quote_id"].startswith("qt_"), quote

order_body = example("CreateOrderFromQuote")
order_body["quote_id"] = quote["quote_id"]
order_body["merchant_reference"] = "python-" + str(time.time_ns())
order = call("createOrder", body=order_body)
assert order["status"] == "awaiting_user_payment", order

detail = call("getOrder", path_params={"reference": order["reference"]}, query={"include": ["payout", "timeline"]})
assert detail["reference"] == order["reference"], detail
assert isinstance(detail["payout"], list) and isinstance(detail["timeline"], list) and detail["timeline"], detail

cancelled = call("cancelOrder", path_params={"reference": order["reference"]}, body=example("CancelBody"))
assert cancelled["status"] == "cancelled", cancelled
print(json.dumps({"done": True, "reference": order["reference"]}))
