"""Drives the answers MCP surfaces with the official Python MCP client (`mcp`).

Usage:
    client.py http URL TOKENS_FILE ANSWERS_BIN   the record server of `answers serve`, per person
    client.py fault URL TOKENS_FILE ANSWERS_BIN  the same, with its store broken underneath
    client.py stdio ANSWERS_BIN                  the vocabulary server of `answers mcp`

The expected tool lists come from the registry, `ANSWERS_BIN tools --json`, never a copy.

Prints one `ok: ...` line per check and exits 0, or prints `FAIL: ...` and exits 1. A check
never prints a tool's answer text beyond what it asserts on.
"""

import asyncio
import json
import subprocess
import sys

from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client



def registry(binary):
    """The tools of `answers tools --json`, in listing order."""
    out = subprocess.run([binary, "tools", "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)["tools"]


def published(tools, surface, shown=None):
    """The names `surface` lists, for a person who has the data named in `shown`."""
    return [
        t["name"]
        for t in tools
        if surface in t["surfaces"] and (shown is None or t["visible_when"] == "always" or t["visible_when"] in shown)
    ]


# One call per tool that the demo record answers, for the person who has the data.
CALLS = {
    "query_health_indicators": {"indicators": ["steps"], "view": "stats"},
    "query_medications": {"view": "history"},
    "query_genetic_data": {"gene": "CYP2C19"},
    "query_pharmacogenomics": {"drugs": ["clopidogrel"]},
    "resolve_indicator": {"name": "Glycated Hemoglobin-HbA1c"},
    "convert_unit": {"value": 100, "from": "mg/dL", "to": "mmol/L", "indicator": "glucose"},
    "normalize_unit": {"unit": "mg/dl"},
    "standardize_reading": {"name": "心率", "value": 62, "unit": "bpm"},
    "standardize_complaint": {"text": "头疼"},
}

MODES = {"auto": "2026-07-28", "legacy": "2025-11-25"}


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}", flush=True)
        sys.exit(1)
    print(f"ok: {what}", flush=True)


async def exercise(client, expected_tools, label):
    listed = [t.name for t in (await client.list_tools()).tools]
    check(listed == expected_tools, f"{label}: tools/list is exactly {expected_tools} (got {listed})")
    for tool in (await client.list_tools()).tools:
        schema = tool.input_schema
        check(schema.get("additionalProperties") is False, f"{label}: {tool.name} schema is closed")
    for name in listed:
        r = await client.call_tool(name, CALLS[name])
        check(not r.is_error, f"{label}: {name} answers without error")
        check(r.structured_content is not None and r.structured_content.get("status") in ("ok", "partial"),
              f"{label}: {name} carries the envelope as structuredContent")
        check(bool(r.content) and r.content[0].text.strip() != "", f"{label}: {name} has the compact text")
    if "normalize_unit" in listed:
        await originals_shapes(client, label)
    # An unknown parameter: a structured refusal naming it, not the SDK's deserialisation text.
    first = listed[0]
    r = await client.call_tool(first, {**CALLS[first], "bogus_param": 1})
    text = r.content[0].text
    check(r.is_error, f"{label}: an unknown parameter is isError")
    check(text.startswith("error (invalid_arguments): bogus_param: unknown parameter"),
          f"{label}: the refusal names the parameter ({text.splitlines()[0]!r})")
    check("deserialize" not in text, f"{label}: the refusal is not deserialisation text")
    check(r.structured_content is not None and r.structured_content.get("status") == "error",
          f"{label}: the refusal is an error envelope")
    try:
        await client.call_tool("no_such_tool", {})
    except MCPError as e:
        check("not found" in str(e), f"{label}: an unknown tool is a JSON-RPC error")
    else:
        check(False, f"{label}: an unknown tool is a JSON-RPC error")


def rows(result):
    """The rows of the first table of an answer, as dicts by column."""
    tables = (result.structured_content or {}).get("data", [])
    if not tables:
        return []
    columns = tables[0]["columns"]
    return [dict(zip(columns, row)) for row in tables[0]["rows"]]


async def originals_shapes(client, label):
    """The terminology tools take the original's argument shapes: batches and its names."""
    units = ["mg/dl", "次/分", "毫摩尔每升", "mmHg"] * 50
    r = await client.call_tool("normalize_unit", {"units": units})
    got = rows(r)
    check(not r.is_error and len(got) == 200, f"{label}: normalize_unit(units) answers 200 rows for 200 units")
    check([g["index"] for g in got] == list(range(200)) and [g["input"] for g in got] == units,
          f"{label}: one row per unit, in order")
    check([g["ucum"] for g in got[:4]] == ["mg/dL", "/min", "mmol/L", "mm[Hg]"], f"{label}: each unit normalised")
    r = await client.call_tool("normalize_unit", {"units": units + ["mg/dl"]})
    check(r.is_error and r.content[0].text.startswith("error (invalid_arguments): units: at most 200"),
          f"{label}: a batch over 200 is refused")
    r = await client.call_tool("resolve_indicator", {"names": ["HbA1c", "心率", "unobtainium"]})
    check(r.is_error and r.content[0].text.startswith("error (invalid_arguments): names.2: no indicator"),
          f"{label}: a bad item is refused by its index ({r.content[0].text.splitlines()[0]!r})")
    r = await client.call_tool("resolve_indicator", {"names": ["HbA1c", "心率"]})
    check([g["code"] for g in rows(r)] == ["4548-4", "8867-4"], f"{label}: resolve_indicator(names) resolves each name")
    r = await client.call_tool("convert_unit", {"value": 100, "from_unit": "mg/dL", "to_unit": "mmol/L", "loinc_code": "2345-7"})
    check(not r.is_error and rows(r)[0]["result"] == 5.551,
          f"{label}: convert_unit(value, from_unit, to_unit, loinc_code) converts")


def http_client(url, token):
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    return streamable_http_client(url, http_client=http)


def read_tokens(tokens_file):
    """The tokens of a `--tokens-file`: `handle=token` a line."""
    tokens = {}
    with open(tokens_file, encoding="utf-8") as f:
        for line in f:
            if "=" in line:
                handle, token = line.strip().split("=", 1)
                tokens[handle] = token
    return tokens


async def record(url, tokens_file, binary):
    tools = registry(binary)
    record_tools = published(tools, "record_mcp")
    tokens = read_tokens(tokens_file)
    # The demo record: mom has readings, medications and genotypes; you has readings only.
    you_tools = published(tools, "record_mcp", shown={"has_readings"})
    check(len(record_tools) == 7 and len(you_tools) == 4, "the registry lists seven record tools, four of them for you")
    for mode, version in MODES.items():
        for who, expected in (("mom", record_tools), ("you", you_tools)):
            async with Client(http_client(url, tokens[who]), mode=mode) as c:
                check(c.protocol_version == version, f"{who}/{mode}: negotiated {version} (got {c.protocol_version})")
                await exercise(c, expected, f"{who}/{mode}")
                if who == "you":
                    try:
                        await c.call_tool("query_medications", {"view": "plan"})
                    except MCPError as e:
                        check("not found" in str(e), f"{who}/{mode}: a hidden tool cannot be called")
                    else:
                        check(False, f"{who}/{mode}: a hidden tool cannot be called")
    # The personal URL secret authenticates like the bearer token.
    secret_url = url.rstrip("/") + "/u/" + tokens["mom"]
    async with Client(streamable_http_client(secret_url), mode="auto") as c:
        listed = [t.name for t in (await c.list_tools()).tools]
        check(listed == record_tools, "mom by personal URL secret sees the seven tools")
    # No token, or a wrong one: refused before any tool runs.
    for label, token in (("no token", None), ("a wrong token", "phg_" + "0" * 64)):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        try:
            async with Client(streamable_http_client(url, http_client=create_mcp_http_client(headers=headers)), mode="auto") as c:
                await c.list_tools()
        except Exception:  # noqa: BLE001 - any failure to connect is the refusal
            check(True, f"{label} is refused")
        else:
            check(False, f"{label} is refused")


async def fault(url, tokens_file, binary):
    """The record server with a table gone under it: a permanent fault is unrecoverable."""
    record_tools = published(registry(binary), "record_mcp")
    tokens = read_tokens(tokens_file)
    for mode in MODES:
        for who in ("mom", "you"):
            label = f"{who}/{mode}/broken"
            async with Client(http_client(url, tokens[who]), mode=mode) as c:
                listed = [t.name for t in (await c.list_tools()).tools]
                check(listed == record_tools, f"{label}: visibility undecided, tools/list lists every tool (got {listed})")
                r = await c.call_tool("query_health_indicators", CALLS["query_health_indicators"])
                env = r.structured_content or {}
                text = r.content[0].text if r.content else ""
                check(r.is_error, f"{label}: the readings call is isError")
                check(env.get("error_kind") == "store_fault" and env.get("error_class") == "unrecoverable",
                      f"{label}: the fault is store_fault, unrecoverable (got {env.get('error_kind')}, {env.get('error_class')})")
                check(text.startswith("error (store_fault)") and "Try once more later" not in text,
                      f"{label}: the text does not invite a retry ({text.splitlines()[0] if text else ''!r})")
                check("no such table" not in text and "series" not in text, f"{label}: no driver message")
                r = await c.call_tool("convert_unit", CALLS["convert_unit"])
                check(not r.is_error, f"{label}: a tool that reads no record still answers")


async def vocab(binary):
    vocab_tools = published(registry(binary), "vocab_mcp")
    check(len(vocab_tools) == 5, "the registry lists five vocabulary tools")
    params = StdioServerParameters(command=binary, args=["mcp"], env={"RUST_LOG": "info"}, cwd=None)
    for mode, version in MODES.items():
        async with Client(params, mode=mode) as c:
            check(c.protocol_version == version, f"stdio/{mode}: negotiated {version} (got {c.protocol_version})")
            await exercise(c, vocab_tools, f"stdio/{mode}")
            r = await c.call_tool("standardize_reading", CALLS["standardize_reading"])
            observations = [
                cell
                for table in (r.structured_content or {}).get("data", [])
                for row in table.get("rows", [])
                for cell in row
                if isinstance(cell, dict) and cell.get("resourceType") == "Observation"
            ]
            check(len(observations) == 1, f"stdio/{mode}: standardize_reading carries one FHIR Observation")
            obs = observations[0]
            codings = obs.get("code", {}).get("coding", [])
            check(any(c.get("system") == "http://loinc.org" and c.get("code") == "8867-4" for c in codings),
                  f"stdio/{mode}: 心率 is coded as LOINC 8867-4 (heart rate)")
            quantity = obs.get("valueQuantity", {})
            check(quantity.get("value") == 62 and quantity.get("system") == "http://unitsofmeasure.org"
                  and quantity.get("code") == "/min",
                  f"stdio/{mode}: bpm becomes the UCUM quantity 62 /min")
            r = await c.call_tool("standardize_complaint", CALLS["standardize_complaint"])
            check("N01" in r.content[0].text, f"stdio/{mode}: 头疼 is coded N01 (headache)")


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "http":
        asyncio.run(record(sys.argv[2], sys.argv[3], sys.argv[4]))
    elif len(sys.argv) == 5 and sys.argv[1] == "fault":
        asyncio.run(fault(sys.argv[2], sys.argv[3], sys.argv[4]))
    elif len(sys.argv) == 3 and sys.argv[1] == "stdio":
        asyncio.run(vocab(sys.argv[2]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
