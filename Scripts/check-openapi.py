#!/usr/bin/env python3
"""Checks the HTTP API's OpenAPI document against a running `sift serve`.

1. The document (docs/openapi.json) is valid OpenAPI 3.1 (openapi-spec-validator).
2. A server started here on loopback, on the built-in products catalog and a small catalog of
   towns with places and other names, is asked every operation of the document — searches,
   items, facets, pins, synonyms, the change feed, keys, and errors — and each answer's status
   must be one the document lists for that operation and its JSON body must fit that answer's
   schema (jsonschema, draft 2020-12). Every operation must have been answered at least once
   with a 2xx.
3. With --schemathesis N, schemathesis then generates up to N requests per operation from the
   served document and checks that none is answered with a 5xx or outside the document.

Usage: Scripts/check-openapi.py [--sift PATH] [--schemathesis N]
Needs python3 with openapi-spec-validator and jsonschema (and schemathesis for step 3):
Scripts/setup-tests installs them. Exits 1 naming each answer outside the document.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ADMIN = "check-openapi-admin-token-0123456789"
TOWNS = [
    {"id": "springfield-il", "name": "Springfield", "other_names": ["Springfield IL", "Capital City"],
     "state": "Illinois", "population": 114394, "lat": 39.8017, "lon": -89.6437,
     "meaning": [0.9, 0.1, 0.0, 0.2]},
    {"id": "springfield-mo", "name": "Springfield", "other_names": ["Queen City of the Ozarks"],
     "state": "Missouri", "population": 169176, "lat": 37.2153, "lon": -93.2982,
     "meaning": [0.8, 0.3, 0.1, 0.0]},
    {"id": "peoria", "name": "Peoria", "other_names": ["River City", "Peoria IL", "Pimiteoui",
     "Fort Clark", "Peoria Town"], "state": "Illinois", "population": 113150,
     "lat": 40.6936, "lon": -89.589, "meaning": [0.7, 0.0, 0.6, 0.1]},
    {"id": "zurich", "name": "Zürich", "other_names": ["Zurich", "Zuerich"], "state": "Zürich",
     "population": 421878, "lat": 47.3769, "lon": 8.5417, "meaning": [0.0, 0.2, 0.1, 0.95]},
]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """`sift serve` on a free loopback port, in a data folder of its own."""

    def __init__(self, sift):
        self.folder = tempfile.mkdtemp(prefix="sift-openapi-")
        self.environment = dict(os.environ, SIFT_DATA_DIR=os.path.join(self.folder, "data"))
        token = os.path.join(self.folder, "admin.key")
        with open(token, "w") as file:
            file.write(ADMIN + "\n")
        towns = os.path.join(self.folder, "towns.jsonl")
        with open(towns, "w") as file:
            file.writelines(json.dumps(town) + "\n" for town in TOWNS)
        subprocess.run(
            [sift, "import", towns, "--catalog", os.path.join(self.folder, "towns.sqlite"),
             "--title", "name", "--id", "id", "--text", "other_names", "--category", "state",
             "--number", "population", "--rank-by", "population", "--location", "lat,lon",
             "--vector", "meaning"],
            check=True, env=self.environment, capture_output=True)
        self.port = free_port()
        self.log = open(os.path.join(self.folder, "serve.log"), "w")
        self.process = subprocess.Popen(
            [sift, "serve", "--catalog", "products", "--catalog",
             os.path.join(self.folder, "towns.sqlite"), "--port", str(self.port),
             "--token-file", token, "--record-searches"],
            env=self.environment, stdout=self.log, stderr=subprocess.STDOUT)
        self.base = f"http://127.0.0.1:{self.port}"
        for _ in range(200):
            try:
                urllib.request.urlopen(self.base + "/health", timeout=1)
                return
            except (urllib.error.URLError, ConnectionError):
                if self.process.poll() is not None:
                    break
                time.sleep(0.1)
        self.stop()
        raise SystemExit("check-openapi: sift serve did not start:\n" + self.read_log())

    def read_log(self):
        with open(os.path.join(self.folder, "serve.log")) as file:
            return file.read()

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def request(base, method, path, body=None, token=ADMIN):
    """(status, content type, body bytes) of one request."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    call = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(call, timeout=30) as answer:
            return answer.status, answer.headers.get("Content-Type", ""), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read()


class Document:
    """The OpenAPI document, and each answer checked against it."""

    def __init__(self, document):
        from jsonschema import Draft202012Validator
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012

        self.document = document
        self.registry = Registry().with_resource(
            "urn:sift-api", Resource.from_contents(document, default_specification=DRAFT202012))
        self.validator = Draft202012Validator
        self.answered = set()
        self.faults = []

    def operation(self, method, template):
        item = self.document["paths"].get(template)
        if item is None or method.lower() not in item:
            raise SystemExit(f"check-openapi: the document has no {method} {template}")
        return item[method.lower()]

    def check(self, method, template, path, status, content_type, body):
        where = f"{method} {path} → {status}"
        operation = self.operation(method, template)
        responses = operation["responses"]
        key = str(status) if str(status) in responses else "default"
        if key not in responses:
            self.faults.append(f"{where}: the document lists {sorted(responses)} for {template}")
            return
        if 200 <= status < 300:
            self.answered.add((method, template))
        response = responses[key]
        pointer = f"/paths/{escape(template)}/{method.lower()}/responses/{key}"
        if "$ref" in response:
            pointer = response["$ref"][1:]
            response = self.resolve(response["$ref"])
        if method == "HEAD":
            if body:
                self.faults.append(f"{where}: HEAD answered with a body")
            return
        content = response.get("content", {})
        if not content:
            if body:
                self.faults.append(f"{where}: no body is documented, {len(body)} bytes came")
            return
        media = content_type.split(";")[0].strip()
        if media not in content:
            self.faults.append(f"{where}: {media or 'no type'}, the document says {sorted(content)}")
            return
        if media != "application/json":
            return
        try:
            value = json.loads(body)
        except ValueError as error:
            self.faults.append(f"{where}: not JSON ({error})")
            return
        schema = {"$ref": f"urn:sift-api#{pointer}/content/{escape(media)}/schema"}
        validator = self.validator(schema, registry=self.registry)
        for error in sorted(validator.iter_errors(value), key=lambda e: list(e.path))[:3]:
            at = "/".join(str(part) for part in error.path)
            self.faults.append(f"{where}: at /{at}: {error.message[:300]}")

    def resolve(self, reference):
        node = self.document
        for part in reference[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node


def escape(text):
    return text.replace("~", "~0").replace("/", "~1")


def exercise(server, document):
    """Every operation of the document, as a client would use it."""
    base = server.base
    calls = []

    def call(method, template, path, body=None, token=ADMIN):
        status, content_type, answer = request(base, method, path, body, token)
        document.check(method, template, path, status, content_type, answer)
        calls.append((method, path, status))
        return status, answer

    search = "/catalogs/{name}/search"
    for path in ["/", "/page.js", "/page.css", "/openapi.json", "/health", "/metrics", "/catalogs"]:
        call("GET", path, path)
        call("HEAD", path, path)
    for query in [
        "q=rose", "q=rose&limit=1&facets=1&explain=1", "q=gingr", "q=zzzzqq", "q=r&offset=3",
        "q=rose&token=category:Funerals&sort=year:desc", "q=rose%202010&crop=2",
        "q=%23fun", "q=rose&scope=Funerals&record=1", "q=&distinct=type&limit=3",
    ]:
        call("GET", search, "/catalogs/products/search?" + query)
    for query in [
        "q=spring&near=39.8,-89.6&within=500", "q=city&within_box=30,-100,45,-80&facets=1",
        "q=zuerich&explain=1", "q=p&limit=1", "q=&sort=distance&near=47,8",
    ]:
        call("GET", search, "/catalogs/towns/search?" + query)
    # By meaning: like an item, a vector in a body, fused with text.
    for query in ["like=peoria", "like=peoria&neighbors=2&explain=1",
                  "q=spring&like=zurich&semantic_ratio=0.7&explain=1"]:
        call("GET", search, "/catalogs/towns/search?" + query)
    call("POST", search, "/catalogs/towns/search",
         {"vector": [1, 0, 0, 0], "limit": 3, "explain": True})
    call("POST", search, "/catalogs/towns/search",
         {"q": "peoria", "vector": [0, 0, 0, 1], "semantic_ratio": 0.5, "token": ["category:Illinois"],
          "facets": True})
    call("POST", search, "/catalogs/products/search", {"q": "rose", "limit": 2})
    call("HEAD", search, "/catalogs/products/search?q=rose")
    call("GET", "/search", "/search?catalog=products&catalog=towns&q=r&limit=2")
    call("GET", "/catalogs/{name}/facets/{field}", "/catalogs/products/facets/type?q=f")
    call("GET", "/catalogs/{name}/facets/{field}",
         "/catalogs/towns/facets/state?q=i&search=spring&limit=5")
    call("GET", "/catalogs/{name}/suggestions", "/catalogs/products/suggestions?q=r")

    items = "/catalogs/{name}/items/{id}"
    call("GET", items, "/catalogs/products/items/14")
    call("GET", items, "/catalogs/towns/items/peoria")
    status, answer = call("POST", "/catalogs/{name}/items", "/catalogs/products/items",
                          {"title": "Orange Lily", "year": 2025, "price": 12, "type": "Gifts"})
    made = json.loads(answer)["id"] if status == 201 else "16"
    call("PUT", items, f"/catalogs/products/items/{made}",
         {"title": "Orange Lily", "year": 2026, "price": 12.5, "type": "Gifts"})
    call("POST", "/catalogs/{name}/items", "/catalogs/products/items",
         {"id": made, "title": "Twice", "year": 2025, "price": 1, "type": "Gifts"})
    call("DELETE", items, f"/catalogs/products/items/{made}")
    call("GET", items, f"/catalogs/products/items/{made}")

    synonyms = "/catalogs/{name}/synonyms"
    call("PUT", synonyms, "/catalogs/products/synonyms",
         {"synonyms": [{"expressions": ["flower", "bloom"]}, {"expressions": ["gift"], "to": ["ginger"]}]})
    call("GET", synonyms, "/catalogs/products/synonyms")
    call("PUT", synonyms, "/catalogs/products/synonyms", {"synonyms": [{"expressions": 3}]})
    pins = "/catalogs/{name}/pins"
    call("PUT", pins, "/catalogs/products/pins", {"pins": [{"query": "rose", "id": "1", "at": 1}]})
    call("POST", pins, "/catalogs/products/pins", {"query": "rose", "id": "13", "hidden": True})
    call("GET", pins, "/catalogs/products/pins")
    call("DELETE", pins, "/catalogs/products/pins?query=rose&id=13")
    call("POST", pins, "/catalogs/products/pins", {"query": "rose", "id": "no-such-item", "at": 1})

    call("GET", "/catalogs/{name}/snapshot", "/catalogs/products/snapshot?limit=2")
    call("GET", "/catalogs/{name}/snapshot", "/catalogs/towns/snapshot")
    status, answer = call("GET", "/catalogs/{name}/snapshot", "/catalogs/products/snapshot?limit=1")
    version = json.loads(answer)["version"] if status == 200 else 0
    call("GET", "/catalogs/{name}/changes", f"/catalogs/products/changes?since={max(0, version - 3)}")
    call("GET", "/catalogs/{name}/changes", "/catalogs/products/changes?since=0")
    call("GET", "/catalogs/{name}/changes", "/catalogs/products/changes")
    call("GET", "/catalogs/{name}/export", "/catalogs/products/export")

    status, answer = call("POST", "/keys", "/keys", {"catalogs": ["products"], "actions": ["search"],
                                                      "description": "check-openapi"})
    key = json.loads(answer) if status == 201 else {}
    call("GET", "/keys", "/keys")
    call("POST", "/keys", "/keys", {"actions": ["fly"]})
    if key:
        call("POST", "/catalogs/{name}/items", "/catalogs/products/items", {"title": "x"},
             token=key["key"])
        call("DELETE", "/keys/{id}", f"/keys/{key['id']}")
    call("DELETE", "/keys/{id}", "/keys/no-such-key")

    # Errors, each with the part at fault.
    call("GET", search, "/catalogs/nope/search?q=x")
    call("GET", search, "/catalogs/products/search?limit=x")
    call("GET", search, "/catalogs/products/search?scope=Nope")
    call("GET", search, "/catalogs/products/search?offset=9999&limit=100")
    call("GET", search, "/catalogs/products/search?like=1")
    call("GET", search, "/catalogs/towns/search?like=nowhere")
    call("POST", search, "/catalogs/towns/search", {"vector": [1, 2]})
    call("POST", search, "/catalogs/towns/search", {"vectors": [1, 2, 3, 4]})
    call("GET", "/keys", "/keys", token="not-a-key")
    call("GET", "/catalogs/{name}/facets/{field}", "/catalogs/products/facets/title?q=r")
    return calls


def run_schemathesis(server, examples):
    """schemathesis against the served document: no 5xx, nothing outside the document."""
    binary = shutil.which("schemathesis") or os.path.join(
        os.path.dirname(sys.executable), "schemathesis")
    if not os.path.exists(binary):
        raise SystemExit("check-openapi: schemathesis is missing (Scripts/setup-tests installs it)")
    # The paths name what this server has, so that requests reach past "no such catalog".
    config = os.path.join(server.folder, "schemathesis.toml")
    with open(config, "w") as file:
        file.write('[parameters]\n"path.name" = "products"\n"path.field" = "type"\n'
                   '"path.id" = "14"\n"query.catalog" = ["products", "towns"]\n')
    command = [
        binary, "--config-file", config, "run", server.base + "/openapi.json",
        "--max-examples", str(examples),
        "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,"
        "response_schema_conformance", "--header", f"Authorization: Bearer {ADMIN}",
        "--phases", "examples,coverage,fuzzing", "--suppress-health-check", "all",
        "--exclude-operation-id", "revokeKey", "--exclude-operation-id", "createKey",
        "--seed", "71", "--no-color",
    ]
    print("check-openapi: schemathesis run …/openapi.json "
          f"--max-examples {examples} (seed 71)", flush=True)
    # In the server's folder: schemathesis keeps its cache in the working directory.
    result = subprocess.run(command, cwd=server.folder, env=dict(os.environ, SCHEMATHESIS_HOOKS=""))
    return result.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sift", default=os.path.join(ROOT, ".build", "debug", "sift"))
    parser.add_argument("--schemathesis", type=int, default=0, metavar="N")
    arguments = parser.parse_args()
    from openapi_spec_validator import validate

    with open(os.path.join(ROOT, "docs", "openapi.json"), encoding="utf-8") as file:
        document = json.load(file)
    validate(document)
    print("check-openapi: docs/openapi.json is valid OpenAPI 3.1")
    server = Server(arguments.sift)
    try:
        checked = Document(document)
        calls = exercise(server, checked)
        operations = {
            (method.upper(), path)
            for path, item in document["paths"].items()
            for method in item if method in ("get", "put", "post", "delete")
        }
        for method, path in sorted(operations - checked.answered):
            checked.faults.append(f"{method} {path}: never answered with a 2xx here")
        if server.process.poll() is not None:
            checked.faults.append("sift serve stopped:\n" + server.read_log())
        print(f"check-openapi: {len(calls)} answers checked against their schemas, "
              f"{len(checked.answered)} operations answered")
        for fault in checked.faults:
            print("check-openapi: " + fault)
        status = 1 if checked.faults else 0
        if arguments.schemathesis and status == 0:
            status = run_schemathesis(server, arguments.schemathesis)
            if server.process.poll() is not None:
                print("check-openapi: sift serve stopped under schemathesis:\n" + server.read_log())
                status = 1
        return status
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
