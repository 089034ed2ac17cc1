"""Validates FHIR fixtures with fhir.resources' R4B models, independently of the importer.

Usage: validate_fhir.py FILE...  A `*.ndjson` file is validated a resource per line, any other
file as one Bundle. Prints `valid N` (resources) per file; exits 1 naming the first file that
a model refuses (with the validator's message, which is about synthetic fixtures only).
"""

import json
import sys

from fhir.resources.R4B import get_fhir_model_class
from fhir.resources.R4B.bundle import Bundle


def main(paths):
    for path in paths:
        with open(path, encoding="utf-8") as f:
            if path.endswith(".ndjson"):
                count = 0
                for number, line in enumerate(f, start=1):
                    if not line.strip():
                        continue
                    resource = json.loads(line)
                    model = get_fhir_model_class(resource["resourceType"])
                    try:
                        model.model_validate(resource)
                    except Exception as e:  # the validator's own refusal
                        print(f"{path} line {number}: {e}", file=sys.stderr)
                        return 1
                    count += 1
            else:
                bundle = json.load(f)
                try:
                    Bundle.model_validate(bundle)
                except Exception as e:
                    print(f"{path}: {e}", file=sys.stderr)
                    return 1
                count = len(bundle.get("entry", []))
        print(f"valid {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
