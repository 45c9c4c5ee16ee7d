from pkg.cli import run


def test_cert_is_parsed():
    context = run.make_context("run", ["--cert", "cert.pem"])
    assert context.params["cert"] == "cert.pem"
