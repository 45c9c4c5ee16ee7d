from django.test import TestCase


class ViewTests(TestCase):
    def setUp(self):
        self.value = 1

    def login(self):
        return self.client.login()

    def test_home(self):
        self.assertEqual(self.login(), True)

    def test_about(self):
        self.assertTrue(self.value)
