from acme.api.routes import post_job


def test_post_job():
    assert post_job("j")
