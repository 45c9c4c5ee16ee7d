require_relative 'item'
require 'json'

module Shop
  # A shopping cart.
  class Cart < Base
    include Helpers

    def initialize
      @items = []
    end

    def add(name)
      item = Item.new(name)
      @items << item
      log(name)
      format_name(name)
      JSON.generate(@items)
    end

    def show(thing)
      thing.label
    end

    private

    def log(message)
      puts message
    end
  end
end
