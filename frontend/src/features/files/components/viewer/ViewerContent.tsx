/** What the viewer shows of a file the server opened: its image, PDF page, text or DOCX, or a
 * card with its original; a PDF's active content warned of above it. */
import { Banner } from '../../../../components/Banner';
import type { StoredFile, ViewerResponse } from '../../../../lib/api/types';
import { VIEWER_MSG } from '../../messages';
import { ImageView } from './ImageView';
import { PdfView } from './PdfView';
import { HtmlView, TextView } from './TextView';
import { OtherCard } from './ViewerCards';
import type { Original, PageText, PageTurn } from './viewerTypes';

interface ContentProps {
  answer: ViewerResponse;
  file: StoredFile | undefined;
  name: string;
  zoom: number;
  pages: PageTurn;
  /** The links have expired (or a picture failed and Try again was pressed): ask for the file
   * again, a new opening with new links. */
  onExpired: () => void;
  original: Original;
  /** The version shown, for its words (the text layer) and the find's highlights. */
  text: PageText;
}

export function ViewerContent(props: ContentProps) {
  // A PDF's active content (JavaScript, launch actions, embedded files): a warning line above it.
  const active = props.answer.activeContent || props.file?.activeContent;
  if (!active) return <Shown {...props} />;
  return (
    <div className="viewer-image-wrap">
      <Banner kind="warning">{VIEWER_MSG.activeContent(active)}</Banner>
      <Shown {...props} />
    </div>
  );
}

function Shown({ answer, file, name, zoom, pages, onExpired, original, text }: ContentProps) {
  const expired = () => Date.parse(answer.expiresAt) <= Date.now();
  if (answer.kind === 'image' && answer.imageUrl) {
    const image = <ImageView url={answer.imageUrl} name={name} zoom={zoom} expired={expired} onExpired={onExpired} original={original} {...text} />;
    // Beyond what the server hands a browser to decode, the picture is its reduced copy.
    if (!answer.imageReduced) return image;
    return (
      <div className="viewer-image-wrap">
        <Banner kind="info">{VIEWER_MSG.imageReduced}</Banner>
        {image}
      </div>
    );
  }
  if (answer.kind === 'pdf' && answer.pageUrl) {
    return <PdfView template={answer.pageUrl} widths={answer.pageWidths} pages={pages} zoom={zoom} expired={expired} onExpired={onExpired} {...text} />;
  }
  if (answer.kind === 'text' && answer.textUrl) return <TextView url={answer.textUrl} name={name} zoom={zoom} version={text.version} />;
  if (answer.kind === 'html' && answer.htmlUrl) return <HtmlView url={answer.htmlUrl} name={name} version={text.version} />;
  return <OtherCard answer={answer} file={file} original={original} />;
}
