package com.shop.service;

class Helper {
    static String format(String s) {
        return s.trim();
    }

    void run() {
    }
}

class Runner {
    void run() {
    }
}
