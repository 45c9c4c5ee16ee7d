namespace Shop.Services
{
    public abstract class BaseCart
    {
        protected void Validate(string name)
        {
        }
    }

    public interface ITotals
    {
        int Total();
    }
}
