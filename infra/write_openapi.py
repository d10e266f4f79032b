"""`make openapi`: writes the OpenAPI document generated from the app's views and types."""
from __future__ import annotations

import sys

from app import app
from chalicelib.apidocs import DOCUMENT
from chalicelib.http.openapi import OpenApiError, openapi_document, render


def main() -> int:
    try:
        document = openapi_document(app)
    except OpenApiError as error:
        print(f"The API cannot be described:\n{error}", file=sys.stderr)
        return 1
    DOCUMENT.write_text(render(document), encoding="utf-8")
    operations = sum(len(item) for item in document["paths"].values())
    print(f"==> {DOCUMENT}: {operations} operations, "
          f"{len(document['components']['schemas'])} schemas")
    return 0


if __name__ == "__main__":
    sys.exit(main())
