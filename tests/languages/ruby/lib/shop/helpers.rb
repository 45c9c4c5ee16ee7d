module Shop
  module Helpers
    def format_name(name)
      name.strip
    end
  end
end
