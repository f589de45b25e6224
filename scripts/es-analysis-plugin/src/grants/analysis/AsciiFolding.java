package grants.analysis;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.TokenFilterFactory;
@NamedComponent("asciifolding")
public class AsciiFolding implements TokenFilterFactory {
  public TokenStream create(TokenStream in) { return new ASCIIFoldingFilter(in); }
  public TokenStream normalize(TokenStream in) { return new ASCIIFoldingFilter(in); }
}
