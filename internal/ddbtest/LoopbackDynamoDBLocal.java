// Starts AWS's DynamoDB Local listening on 127.0.0.1 only. DynamoDB Local
// has no option for the address: its server is a Jetty Server made for a
// port (all interfaces). This builds that server from the same command
// line as DynamoDBLocal.jar's own main (ServerRunner), sets the address of
// its connector before it starts, and starts it.
//
// Run as a single-file source program (Java 11 and later), with the jar
// on the class path:
//   java -cp DynamoDBLocal.jar LoopbackDynamoDBLocal.java -inMemory -port N
import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

public class LoopbackDynamoDBLocal {
    public static void main(String[] args) throws Exception {
        DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
        Field field = DynamoDBProxyServer.class.getDeclaredField("server");
        field.setAccessible(true);
        Server server = (Server) field.get(proxy);
        for (Connector connector : server.getConnectors()) {
            ((ServerConnector) connector).setHost("127.0.0.1");
        }
        proxy.start();
    }
}
