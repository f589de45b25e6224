package grants.analysis;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishMinimalStemFilter;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.apache.lucene.analysis.en.KStemFilter;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.fr.FrenchLightStemFilter;
import org.elasticsearch.plugin.Inject;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.TokenFilterFactory;
import org.elasticsearch.plugin.settings.AnalysisSettings;
import org.elasticsearch.plugin.settings.StringSetting;
@NamedComponent("stemmer")
public class Stemmer implements TokenFilterFactory {
  @AnalysisSettings
  public interface Settings { @StringSetting(path = "language", defaultValue = "english") String language(); }
  private final String language;
  @Inject
  public Stemmer(Settings settings) {
    language = settings.language();
    switch (language) {
      case "english", "porter", "light_english", "minimal_english", "possessive_english", "light_french" -> {}
      default -> throw new IllegalArgumentException("stemmer language [" + language + "] is not supported");
    }
  }
  public TokenStream create(TokenStream in) {
    return switch (language) {
      case "light_english" -> new KStemFilter(in);
      case "minimal_english" -> new EnglishMinimalStemFilter(in);
      case "possessive_english" -> new EnglishPossessiveFilter(in);
      case "light_french" -> new FrenchLightStemFilter(in);
      default -> new PorterStemFilter(in);
    };
  }
}
